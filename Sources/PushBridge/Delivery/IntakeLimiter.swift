import Foundation
import Synchronization

/// The bound on messages in flight (received, and not yet finished: a message whose QoS>0
/// display publish waits for the broker's acknowledgement keeps its place until then): the
/// backpressure that keeps memory bounded when the extension stage or the broker is slow.
///
/// QoS 1/2 messages wait for a place (`enter`), blocking the intake network thread that
/// calls it inside `on_message`: the broker then stops sending past its Receive Maximum and
/// keeps the rest queued in our session. The wait never needs the intake thread itself:
/// places come back when the extension stage finishes (within its time limit) or when a
/// PUBACK arrives on the output connection, which has its own network thread. QoS 0
/// messages never wait: with no place free they are dropped and counted (`tryEnter`).
final class IntakeLimiter: Sendable {
    /// Places: at most this many messages in flight (unless a bounded wait ran out).
    let limit: Int
    private let count = Atomic<Int>(0)
    /// Wakes a waiting `enter` when a place is given back.
    private let gate = WaitGate()

    /// A limiter with `limit` places (at least 1).
    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Messages in flight now.
    package var inFlight: Int { count.load(ordering: .acquiring) }

    /// Takes a place when one is free; `false` (nothing taken) when all are taken.
    func tryEnter() -> Bool {
        var current = count.load(ordering: .relaxed)
        while current < limit {
            let (exchanged, original) = count.compareExchange(expected: current, desired: current + 1,
                                                              ordering: .sequentiallyConsistent)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// Takes a place, waiting up to `maxWait` for one to free; after that it takes one
    /// anyway (the bound is exceeded by one) and returns `false`. `true` when it did not
    /// have to overrun.
    @discardableResult
    package func enter(maxWait: Duration) -> Bool {
        if tryEnter() || gate.wait(until: .now + maxWait, for: tryEnter) { return true }
        count.add(1, ordering: .sequentiallyConsistent)
        return false
    }

    /// Waits (on the same wake-ups as `enter`: a place given back) until `done()` holds or
    /// `deadline` passes; returns whether it holds.
    func wait(until deadline: ContinuousClock.Instant, for done: () -> Bool) -> Bool {
        gate.wait(until: deadline, for: done)
    }

    /// Takes a place without waiting, even past the limit (replayed journal entries,
    /// already bounded by `journal.max_messages`).
    func force() {
        count.add(1, ordering: .acquiringAndReleasing)
    }

    /// Gives a place back.
    package func leave() {
        count.subtract(1, ordering: .sequentiallyConsistent)
        gate.notify()
    }
}
