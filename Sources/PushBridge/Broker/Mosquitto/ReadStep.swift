import CMosquitto

/// The read step of a loop turn (NetworkThread.swift): every packet waiting, through
/// libmosquitto, except the plain PUBLISH packets the read-ahead buffer hands to us
/// (`takePublish`).
extension ClientCore {
    /// Reads packets until the socket is empty, up to `packetsPerTurn`.
    ///
    /// `mosquitto_loop_read(mosq, 1)` reads one packet (or the part of one that has arrived)
    /// and returns success both after a whole packet and when the socket had nothing left.
    /// (`errno` cannot tell them apart: the library's one-byte write to its socket pair for
    /// each packet it queues — a PUBACK, our display publish — leaves `EAGAIN` there.) So a
    /// call that completed no packet with a callback ends the batch: the socket is empty, or
    /// holds part of a packet, or a PINGRESP was read; in the last case `poll` returns at once.
    /// That costs one failing `read` per batch instead of a `FIONREAD` per packet.
    ///
    /// Before each, a plain QoS 0 or QoS 1 PUBLISH at the head of the read-ahead buffer is taken by us
    /// (`takePublish`); every other packet, and every byte of one libmosquitto has begun, is
    /// libmosquitto's.
    func readUntilEmpty(_ fd: Int32, to onMessage: CoreHandlers.Message) -> MosquittoCode {
        let raw = handle.raw
        for _ in 0..<Self.packetsPerTurn {
            if readsPublishes, let buffers = socketBuffers, takePublish(buffers, to: onMessage) {
                if mosquitto_socket(raw) != fd { return .success }
                continue
            }
            let before = callbacksRun.load(ordering: .relaxed)
            let rc = MosquittoCode(mosquitto_loop_read(raw, 1))
            if !rc.isSuccess || mosquitto_socket(raw) != fd { return rc }
            if callbacksRun.load(ordering: .relaxed) == before { break }
        }
        return .success
    }

    /// Takes the PUBLISH at the head of the read-ahead buffer, if that is what comes next and
    /// it is plain (`pb_readahead_take_publish`), and hands it on as libmosquitto's message
    /// callback would: ~2 700 instructions a message fewer, its three allocations of the
    /// message, topic and payload, the copy into a packet buffer, the UTF-8 check of the topic
    /// and three calls of `read`. What it takes is what 2.0.11's `handle__publish` hands to
    /// the callback unchanged: no DUP, no properties (no topic alias, no subscription
    /// identifier), a topic of printable ASCII (valid by `mosquitto_validate_utf8`); QoS 0,
    /// which it then forgets, or QoS 1, whose PUBACK it queues (and ~1 000 more instructions
    /// for queueing and writing it). Our PUBACK is kept by the buffer and, like libmosquitto's,
    /// leaves with the turn's write step, after `onReadsDone` (a connection that ends first
    /// drops it, as libmosquitto drops its queue: the broker sends the message again); a QoS 1
    /// packet is only taken while libmosquitto has nothing queued, so PUBACKs leave in the
    /// order of their packets. libmosquitto no longer sees those packets
    /// arrive: while a flood of them lasts it may send a PINGREQ each keepalive, as it does
    /// when we write alone.
    private func takePublish(_ buffers: SocketBufferHooks, to onMessage: CoreHandlers.Message) -> Bool {
        var parts: (Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0)
        // QoS 1 only while libmosquitto has nothing queued, and not on a connection another
        // thread writes as a guest: its write would send libmosquitto's later PUBACKs ahead of
        // ours, which wait for this thread's write step.
        let acknowledge: Int32 = acceptsGuestWrites || mosquitto_want_write(handle.raw) ? 0 : 1
        let taken = withUnsafeMutableBytes(of: &parts) {
            buffers.takePublish($0.baseAddress!.assumingMemoryBound(to: Int.self), acknowledge)
        }
        guard taken == 1 else { return false }
        // Copied before anything runs: the bytes are the buffer's until the next read.
        let topic = String(copyingUTF8: UnsafeBufferPointer(start: UnsafePointer<UInt8>(bitPattern: parts.0), count: parts.1))
        let payload = Array(UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: parts.2), count: parts.3))
        callbacksRun.add(1, ordering: .relaxed)
        publishesRead.add(1, ordering: .relaxed)
        let mid = Int32(parts.5)
        deliver(topic: topic, payload: payload, qos: mid == 0 ? 0 : 1, retain: parts.4 != 0, mid: mid, properties: nil, to: onMessage)
        return true
    }

    /// Most packets `readUntilEmpty` reads in one loop turn (bounds the PUBACK delay).
    static let packetsPerTurn = 64
}
