import CMosquitto
import Foundation

/// The write step: what is queued goes to the socket through the write-behind buffer, from
/// the network thread's turn (`writeBatch`) or, on a connection that accepts guest writes
/// (`MQTTClientOptions.acceptsGuestWrites`), from the thread that ends a batch of publishes
/// (`writeQueuedAsGuest`): the intake connection's, instead of waking this one's. The network
/// thread holds `writeStep` through each turn but its `poll` (NetworkThread.swift); a guest
/// only tries it.
extension ClientCore {
    /// Writes what is queued, through the write-behind buffer when lent: libmosquitto writes
    /// each packet with its own write(2); the buffer collects them and sends the batch with
    /// one. Bytes a full socket did not take go first, before libmosquitto may write more.
    func writeBatch(_ fd: Int32) -> MosquittoCode {
        guard let buffers = socketBuffers else { return MosquittoCode(mosquitto_loop_write(handle.raw, 1)) }
        if buffers.pending() > 0, settle(buffers.endWrites(), fd) { return .success }  // a flush
        buffers.beginWrites()
        let written = MosquittoCode(mosquitto_loop_write(handle.raw, 1))
        _ = settle(buffers.endWrites(), fd)
        return written
    }

    /// What a write-behind flush left: `true` when bytes wait for the socket to drain. On an
    /// error the socket is shut down, so that libmosquitto's next read reports the broken
    /// connection through its usual path (on_disconnect, reconnect, QoS 1 resent).
    func settle(_ flush: Int32, _ fd: Int32) -> Bool {
        if flush < 0, mosquitto_socket(handle.raw) == fd { _ = shutdown(fd, Int32(SHUT_RDWR)) }
        return flush == 1
    }

    /// Runs `body` holding `writeStep` when another thread may write this connection
    /// (`acceptsGuestWrites`), so that a guest write never meets the loop's own use of the
    /// socket; otherwise just runs it. Never from inside `body` of another `inWriteStep`.
    func inWriteStep<R: Sendable>(_ body: () -> R) -> R {
        guard acceptsGuestWrites else { return body() }
        return writeStep.withLock { _ in body() }
    }

    /// Writes what other threads queued on this connection from the calling thread, through
    /// the network thread's write-behind buffer (one `write(2)`), instead of waking that
    /// thread: for the thread that ends a batch of publishes (`MQTTClient.flushDeferredWake`).
    /// Returns `false` when it did not write everything and the network thread must be woken:
    /// guest writes are off, the network thread is in a turn, the connection is not up or is
    /// stopping, or the socket is full.
    ///
    /// Safe from another thread because the network thread does everything else with a
    /// connected socket and its buffers under `writeStep` (read, write, keepalive, close), a
    /// stop queues its DISCONNECT under it, and this runs only while connected and not
    /// stopping: libmosquitto's write step then finds only PUBLISH, PUBACK, SUBSCRIBE or
    /// PINGREQ packets, and its writes only land in the buffer (never a socket error, so it
    /// never closes the socket or calls back from here). An error of the final `write(2)`
    /// shuts the socket down: the network thread's next read reports it the usual way.
    func writeQueuedAsGuest() -> Bool {
        guard acceptsGuestWrites, let buffers = socketBuffers else { return false }
        let written = writeStep.withLockIfAvailable { share -> Bool in
            // Connected (CONNACK seen, set in a turn): the network thread is not connecting, so
            // the socket is the one its buffers hold or, once closed, none.
            guard share != 0, state.withLock({ $0.connected && !$0.stopRequested }) else { return false }
            let raw = handle.raw
            let fd = mosquitto_socket(raw)
            guard fd >= 0, buffers.guestBegin(UnsafeMutableRawPointer(bitPattern: share), fd) == 0 else { return false }
            let rc = MosquittoCode(mosquitto_loop_write(raw, 1))
            let flushed = buffers.guestEnd()
            _ = settle(flushed, fd)  // an error shuts the socket down for the network thread to see
            return rc.isSuccess && flushed == 0 && !mosquitto_want_write(raw)
        }
        return written ?? false
    }

    /// A QoS 0 publish made on this connection's own network thread (inside its callbacks: the
    /// intake connection's display messages) as a packet we encode ourselves, added to the
    /// thread's write-behind and sent with the turn's other writes (`TopicAliases.publishDirectly`).
    /// Only while libmosquitto has nothing queued: what it queued before must leave first, and a
    /// packet of its own is never cut by ours (the write-behind takes each of its writes whole).
    /// `false`: publish through libmosquitto instead (another thread, no socket buffers, no
    /// CONNACK yet, something queued, a packet too large or the write-behind full).
    func writesDirectly(topic: String, payload: [UInt8], retain: Bool,
                        userProperties: [(name: String, value: String)]) -> Bool {
        guard let buffers = socketBuffers, wakeup.isLoopThread else { return false }
        let raw = handle.raw
        let fd = mosquitto_socket(raw)
        guard fd >= 0, !mosquitto_want_write(raw) else { return false }
        return topicAliases.publishDirectly(topic: topic, payload: payload, retain: retain, userProperties: userProperties) { bytes in
            buffers.append(fd, bytes.baseAddress, bytes.count) == 0
        }
    }
}
