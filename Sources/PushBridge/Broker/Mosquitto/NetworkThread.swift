import CMosquitto
import Foundation

/// The client's own network loop, run on a dedicated thread.
///
/// Why not `mosquitto_loop_start`: its thread runs `mosquitto_loop_forever`, which returns
/// for good on a refused CONNACK, a TLS or a protocol error (lib/loop.c, 2.0.11), leaving a
/// client that never reconnects. This loop connects, runs its turns until the connection
/// fails, and reconnects with backoff, forever, until stop.
///
/// PUBACK timing (checked in lib/handle_publish.c and lib/packet_mosq.c of 2.0.11): for a
/// QoS 1 PUBLISH, `handle__publish` calls `send__puback` and then `on_message`. The PUBACK
/// goes through `packet__queue`, which writes to the socket at once only when
/// `in_callback == false && threaded == mosq_ts_none`. We set `mosquitto_threaded_set(true)`
/// (`mosq_ts_external`, as `loop_start` sets `mosq_ts_self`), so the PUBACK is only queued
/// and is written by a later turn's write step (`mosquitto_loop_write`) on this same thread,
/// after `on_message` has returned. A message made durable inside `onMessage` is therefore
/// durable before the broker sees its PUBACK. (QoS 2 sends PUBREC before the callback and
/// calls `on_message` at PUBREL: no better.)
///
/// The loop itself: we run our own turn (`serviceTurn`) around
/// libmosquitto's public steps `mosquitto_loop_read`, `mosquitto_loop_write` and
/// `mosquitto_loop_misc`, with one `poll` on the socket and our `LoopWakeup` eventfd.
/// `mosquitto_loop` costs a `pselect` and a read of its private wake-up socket pair per
/// packet (2.0.11 reads one packet per call at QoS 0); ours reads every packet already
/// waiting, writes what they queued in one write step, and polls once per batch. TLS runs
/// the same turn: `mosquitto_loop_read` goes on with a handshake in progress and reads while
/// OpenSSL holds decrypted bytes, and `mosquitto_loop`'s `select` would refuse a socket
/// numbered 1024 or more. `mosquitto_loop` is never called: a client whose eventfd cannot be
/// made fails at its init (that process is out of descriptors, and the sockets it still gets
/// are the high-numbered ones `select` refuses).
extension ClientCore {
    /// How long one turn may wait in `poll`; publish, subscribe and disconnect from other
    /// threads wake it early through `LoopWakeup`.
    static let loopTimeoutMilliseconds: Int32 = 1000
    /// How long the loop keeps running after stop, to write the DISCONNECT.
    static let disconnectGrace: Duration = .seconds(2)

    /// Runs until stop is requested, calling `handlers`. The thread holds the `ClientLoop` it
    /// sets as the handle's `userdata` strongly throughout, and clears `userdata` before it
    /// lets go, so every callback's `userdata` is live or `nil`.
    func runNetworkLoop(handlers: CoreHandlers) {
        let loop = ClientLoop(core: self, handlers: handlers)
        mosquitto_user_data_set(handle.raw, Unmanaged.passUnretained(loop).toOpaque())
        defer {
            mosquitto_user_data_set(handle.raw, nil)
            withExtendedLifetime(loop) {}
        }
        var backoff = ReconnectBackoff(minimum: options.reconnectMin, maximum: options.reconnectMax)
        let properties = connectProperties()
        let keepalive = Int32(options.keepalive.wholeSeconds())
        wakeup.adoptCurrentThread()
        if acceptsGuestWrites, let buffers = socketBuffers {
            // This thread's buffers live as long as the thread; the share is withdrawn below.
            writeStep.withLock { $0 = UInt(bitPattern: buffers.share()) }
        }
        defer { if acceptsGuestWrites { writeStep.withLock { $0 = 0 } } }
        while !isStopRequested {
            state.withLock { s in
                s.accepted = false
                s.refusal = nil
            }
            topicAliases.reset()  // before the new socket: no alias-only packet may reach it
            handle.restoreSendMaximum(options)
            // Not under `writeStep`: a connect may block for long (a stop must not wait for it), and
            // no guest writes while the connection is not up (`writeQueuedAsGuest`).
            let rc = MosquittoCode(mosquitto_connect_bind_v5(handle.raw, options.host, Int32(options.port),
                                                             keepalive, nil, properties?.head))
            var ended = rc
            if rc.isSuccess {
                if isStopRequested {
                    // stop() may have run between its DISCONNECT and this new socket.
                    inWriteStep { _ = mosquitto_disconnect_v5(handle.raw, 0, nil) }
                }
                // Our loop reads and writes the socket through per-thread buffers when the
                // executable lent them (SocketBufferHooks): one read(2) and one write(2) per batch
                // instead of three reads per packet and a write per packet. Detached below (or by
                // libmosquitto's close), before the descriptor number can be reused.
                if let buffers = socketBuffers {
                    if inWriteStep({ buffers.attach(mosquitto_socket(handle.raw)) }) != 0 {
                        log(.warning, "no memory for the socket buffers; reading and writing packet by packet")
                    } else if readsPublishes {
                        buffers.readPublishes(options.protocolVersion == .v5 ? 5 : 4)
                    }
                }
                var stopSeen: ContinuousClock.Instant? = nil
                var owedAcknowledgement = false
                repeat {
                    if readsPaused.load(ordering: .acquiring) {
                        if !readsPausedSignalled.exchange(true, ordering: .acquiringAndReleasing) { readsPausedSeen.signal() }
                        ended = writeOnlyTurn()
                    } else {
                        ended = serviceTurn(owedAcknowledgement: &owedAcknowledgement, handlers: handlers)
                    }
                    // A DISCONNECT that cannot be written (a stuck broker) must not hold stop forever.
                    if stopSeen == nil, isStopRequested { stopSeen = .now }
                    if let stopSeen, ContinuousClock.now - stopSeen > Self.disconnectGrace { break }
                } while ended.isSuccess
                inWriteStep {
                    socketBuffers?.detach()
                    // No guest write from here to the next CONNACK (the reconnect runs unlocked).
                    state.withLock { $0.connected = false }
                }
            }
            let reason = ended.description
            let (accepted, refusal) = state.withLock { s in
                s.connected = false
                return (s.accepted, s.refusal)
            }
            if isStopRequested { break }
            if accepted { backoff.reset() }
            let delay = backoff.next()
            let retry = "retrying in \(delay.text)"
            if accepted {
                log(.warning, "connection to \(options.endpoint) lost: \(reason); \(retry)")
                handlers.onConnection(.disconnected(reason: reason))
            } else {
                let why = refusal ?? reason
                log(.error, "cannot connect to \(options.endpoint): \(why); \(retry)")
                handlers.onConnection(.connectFailed(reason: why))
            }
            _ = wake.wait(until: .now + delay) { isStopRequested }
        }
        if let buffers = socketBuffers {
            log(.debug, buffers.summary(mutedFD: handle.mutedWakeFD))
            let guest = buffers.guestWrites()
            if guest > 0 { log(.debug, "another connection's writes from this thread: \(guest) write(2)") }
            let direct = topicAliases.directPackets
            if direct > 0 { log(.debug, "QoS 0 packets encoded by us: \(direct)") }
            let read = publishesRead.load(ordering: .relaxed)
            if read > 0 { log(.debug, "PUBLISH packets read by us: \(read)") }
        }
        let pauses = readPauses.load(ordering: .relaxed)
        if pauses > 0 { log(.debug, "turns that paused for the next batch: \(pauses)") }
        _ = hasEnded.exchange(true, ordering: .sequentiallyConsistent)  // a read-modify-write before the notify (WaitGate)
        ended.notify()
    }

    var isStopRequested: Bool { state.withLock { $0.stopRequested } }

    /// `delay` as `poll`'s timeout: whole milliseconds rounded up, at least 1 and at most
    /// `loopTimeoutMilliseconds` (a turn never sleeps longer than the loop's own timeout).
    static func pollMilliseconds(_ delay: Duration) -> Int32 {
        Int32(max(1, min(Double(loopTimeoutMilliseconds), (delay / .milliseconds(1)).rounded(.up))))
    }

    /// Publishes of ours are waiting for their acknowledgement.
    private var awaitsAcknowledgements: Bool { state.withLock { $0.unacknowledgedCount > 0 } }

    /// One turn of our own loop (plain TCP): poll, read every waiting packet (their callbacks
    /// run here), write everything queued, keepalive. Returns a failure when the connection
    /// ended (`.noConnection` once the socket is closed, e.g. after our DISCONNECT).
    ///
    /// `owedAcknowledgement`: a turn read without writing, and the TCP ACK of what it read is
    /// left to the next turn's bytes, or to `TCP_QUICKACK` once `quickAckDeferral` passes with
    /// nothing to read (see `acknowledgeQuickly`).
    private func serviceTurn(owedAcknowledgement: inout Bool, handlers: CoreHandlers) -> MosquittoCode {
        let raw = handle.raw
        let fd = mosquitto_socket(raw)
        guard fd >= 0 else { return .noConnection }
        let wantsWrite = mosquitto_want_write(raw) || pendingWrites > 0
        let socketEvents = Int16(POLLIN) | (wantsWrite ? Int16(POLLOUT) : 0)
        var fds = [pollfd(fd: fd, events: socketEvents, revents: 0),
                   pollfd(fd: wakeup.fd, events: Int16(POLLIN), revents: 0)]
        // Bytes already in the read-ahead buffer are invisible to poll: do not wait then.
        let buffered = bufferedReads > 0
        if let coalescing = options.readCoalescing,
           coalescing.pauses(afterBatch: lastBatch.load(ordering: .relaxed), buffered: buffered) {
            // A flood: let the next batch gather (outside `writeStep`: guests may write meanwhile).
            readPauses.add(1, ordering: .relaxed)
            usleep(coalescing.microseconds)
        }
        var timeout = buffered ? 0 : Self.loopTimeoutMilliseconds
        if !buffered, let delay = acknowledgementReadDelayMilliseconds, awaitsAcknowledgements {
            // Sleep through the PUBACKs (POLLERR/POLLHUP still wake us) until a wake-up, room
            // to write or the delay; then what is readable is read with this wake-up's writes.
            // After the delay, every readable socket wakes us again (a slow broker's PUBACKs
            // cost one timer wake-up, not one per delay).
            fds[0].events = wantsWrite ? Int16(POLLOUT) : 0
            let woken = poll(&fds, 2, delay)
            if woken < 0 { return errno == EINTR ? .success : .errno }
            fds[0].events = socketEvents
            if woken > 0 { timeout = 0 }
        }
        let ready: Int32
        if owedAcknowledgement, timeout > 0, let buffers = socketBuffers {
            // The broker's Nagle holds its next small packet until we acknowledge: wait for it
            // only briefly, then acknowledge and wait as usual.
            ready = fds.withUnsafeMutableBytes { buffers.pollNanoseconds($0.baseAddress, 2, Self.quickAckDeferralNanoseconds) }
            if ready == 0 {
                inWriteStep { acknowledgeQuickly() }
                owedAcknowledgement = false
                return .success
            }
        } else {
            ready = poll(&fds, 2, timeout)
        }
        if ready < 0 { return errno == EINTR ? .success : .errno }
        let polled = fds
        return inWriteStep { turnAfterPoll(fd, polled, buffered: buffered, owedAcknowledgement: &owedAcknowledgement,
                                    handlers: handlers) }
    }

    /// The rest of `serviceTurn` once `poll` returned with `fds` (under `writeStep`).
    private func turnAfterPoll(_ fd: Int32, _ fds: [pollfd], buffered: Bool, owedAcknowledgement: inout Bool,
                               handlers: CoreHandlers) -> MosquittoCode {
        let raw = handle.raw
        if fds[1].revents != 0 { wakeup.drain() }
        let readable = buffered || fds[0].revents & Int16(POLLIN | POLLERR | POLLHUP) != 0
        lastBatch.store(0, ordering: .relaxed)
        if readable {
            let before = callbacksRun.load(ordering: .relaxed)
            let rc = readUntilEmpty(fd, to: handlers.onMessage)
            lastBatch.store(callbacksRun.load(ordering: .relaxed) &- before, ordering: .relaxed)
            // Before any write: what the batch's messages need committed goes first.
            if callbacksRun.load(ordering: .relaxed) != before { handlers.onReadsDone() }
            if !rc.isSuccess { return rc }
            if mosquitto_socket(raw) != fd { return .success }
        }
        // Always: what this turn's callbacks or other threads queued (cheap when nothing is).
        let writesBefore = socketBuffers?.writeCalls
        let written = writeBatch(fd)
        if !written.isSuccess { return written }
        // A turn that sent bytes acknowledged what it read with them. One that only read owes
        // the ACK: in a flood the next turn's bytes carry it (a pure ACK per read-only turn cost
        // the kernel's whole TCP path, ~2 µs per message in the QoS 0 flood), otherwise
        // `quickAckDeferral` without anything to read sends it. Without the socket buffers (TLS)
        // a turn cannot tell whether it wrote: it acknowledges at once, as does the output
        // connection, whose turns read only PUBACKs.
        if socketBuffers?.writeCalls != writesBefore {
            owedAcknowledgement = false
        } else if readable {
            if defersAcknowledgements { owedAcknowledgement = true } else { acknowledgeQuickly() }
        }
        return MosquittoCode(mosquitto_loop_misc(raw))
    }

    /// A turn after `pauseReads()`: waits for the wake-up (or for room to write), writes what
    /// is queued and keeps the connection's timers, but reads nothing.
    private func writeOnlyTurn() -> MosquittoCode {
        let raw = handle.raw
        let fd = mosquitto_socket(raw)
        guard fd >= 0 else { return .noConnection }
        let pending = pendingWrites > 0
        let wantsWrite = mosquitto_want_write(raw) || pending
        var fds = [pollfd(fd: fd, events: wantsWrite ? Int16(POLLOUT) : 0, revents: 0),
                   pollfd(fd: wakeup.fd, events: Int16(POLLIN), revents: 0)]
        let ready = poll(&fds, 2, wantsWrite ? Self.loopTimeoutMilliseconds : 100)
        if ready < 0 { return errno == EINTR ? .success : .errno }
        if fds[1].revents != 0 { wakeup.drain() }
        if fds[0].revents & Int16(POLLERR | POLLHUP) != 0 { return .connectionLost }
        return inWriteStep {
            let written = writeBatch(fd)
            if !written.isSuccess { return written }
            return MosquittoCode(mosquitto_loop_misc(raw))
        }
    }

    /// How long a turn that read without writing leaves the TCP ACK to the next turn's bytes
    /// before it sends it alone (`serviceTurn`): the longest a broker's Nagle can hold its next
    /// packet to us because of it. (Below one second: `ppoll` takes the nanoseconds alone.)
    static let quickAckDeferral: Duration = .microseconds(200)
    static let quickAckDeferralNanoseconds = Int(quickAckDeferral.components.attoseconds / 1_000_000_000)

    /// Re-arms TCP_QUICKACK on the socket (Linux clears it after each delayed-ACK decision);
    /// an ACK the kernel was delaying leaves at once (`__tcp_sock_set_quickack` →
    /// `tcp_cleanup_rbuf`).
    ///
    /// The broker leaves Nagle on; when the bridge receives without publishing back (a
    /// suppressed or background message), our delayed ACK made the broker's next small
    /// packet wait ~40 ms behind Nagle. Acknowledging within `quickAckDeferral` keeps that
    /// wait below it.
    private func acknowledgeQuickly() {
        let fd = mosquitto_socket(handle.raw)
        guard fd >= 0 else { return }
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), Int32(TCP_QUICKACK), &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// CONNECT properties for MQTT 5 (Session Expiry Interval, Receive Maximum); `nil` for 3.1.1.
    private func connectProperties() -> PropertyList? {
        guard options.protocolVersion == .v5 else { return nil }
        let list = PropertyList()
        do {
            let expiry = options.sessionExpiry.wholeSeconds(limit: Int64(UInt32.max))
            if expiry > 0 {
                try list.addInt32(MQTT_PROP_SESSION_EXPIRY_INTERVAL, UInt32(expiry))
            }
            if let receiveMaximum = options.receiveMaximum {
                try list.addInt16(MQTT_PROP_RECEIVE_MAXIMUM, UInt16(receiveMaximum))
            }
        } catch {
            log(.error, "cannot build CONNECT properties: \(error)")
        }
        return list
    }
}
