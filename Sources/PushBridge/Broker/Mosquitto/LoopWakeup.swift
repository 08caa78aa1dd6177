import CMosquitto
import Foundation
import Synchronization

/// Wakes the network thread's `poll` when another thread queues a packet (publish,
/// subscribe, disconnect): an `eventfd` the loop polls next to the socket.
///
/// libmosquitto has its own wake-up, a private socket pair that `mosquitto_loop` reads one
/// byte from per turn; our loop does not call `mosquitto_loop`, so that pair is never read
/// and, once its small buffer is full, the library's one-byte write per queued packet fails
/// at once with `EAGAIN` (both ends are non-blocking, lib/net_mosq.c). This wake-up costs at
/// most one `write` per loop turn however many packets other threads queue, and none for
/// packets the loop's own callbacks queue (the loop writes after its reads anyway).
final class LoopWakeup: Sendable {
    /// The eventfd.
    let fd: Int32
    /// A wake-up is written and not yet drained: later signals need not write again.
    private let pending = Atomic<Bool>(false)
    /// The loop thread (`pthread_t`); its own signals are skipped.
    private let owner = Atomic<UInt>(0)

    /// A new eventfd; throws when the system gives none (the process is out of descriptors).
    init() throws(MQTTError) {
        fd = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard fd >= 0 else {
            throw .library(code: Int32(MOSQ_ERR_ERRNO.rawValue),
                           message: "cannot make the network thread's wake-up (eventfd: \(String(cString: strerror(errno))))")
        }
    }

    deinit {
        close(fd)
    }

    /// Called by the loop thread before its first turn.
    func adoptCurrentThread() {
        owner.store(pthread_self(), ordering: .releasing)  // pthread_t is an integer on Linux
    }

    /// The calling thread is the loop thread.
    var isLoopThread: Bool {
        pthread_equal(pthread_self(), owner.load(ordering: .acquiring)) != 0
    }

    /// Makes the loop's next (or current) `poll` return. Call after the packet is queued.
    func signal() {
        if pthread_equal(pthread_self(), owner.load(ordering: .acquiring)) != 0 { return }
        guard !pending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var one: UInt64 = 1
        _ = write(fd, &one, MemoryLayout<UInt64>.size)
    }

    /// Consumes the wake-up: reads the eventfd, *then* clears `pending`. (The other order
    /// loses wake-ups: a signal between the two would write a count this read swallows and
    /// leave `pending` set, so every later signal would skip its write.) A signal that skips
    /// its write because `pending` was still set came before the clear, and its packet was
    /// queued before it; the loop writes what is queued after this, so it still goes out.
    func drain() {
        var value: UInt64 = 0
        _ = read(fd, &value, MemoryLayout<UInt64>.size)
        pending.store(false, ordering: .sequentiallyConsistent)
    }
}
