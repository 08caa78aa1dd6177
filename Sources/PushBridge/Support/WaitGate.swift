import Foundation
import Synchronization

/// Lets a thread wait, with a deadline, for a condition that other threads change, without
/// polling: the threads that change it call `notify()`, which costs one atomic load while
/// nobody waits.
///
/// The condition must be made true by an atomic read-modify-write (or under a lock) before
/// `notify()`; the waiter registers before it evaluates the condition, so a change between
/// its check and its sleep is never missed.
package final class WaitGate: Sendable {
    private let condition = NSCondition()
    private let waiters = Atomic<Int>(0)

    /// A gate nobody waits at yet.
    package init() {}

    /// Returns `true` as soon as `ready()` holds, `false` if `deadline` passes first.
    package func wait(until deadline: ContinuousClock.Instant, for ready: () -> Bool) -> Bool {
        if ready() { return true }
        condition.lock()
        defer { condition.unlock() }
        waiters.add(1, ordering: .sequentiallyConsistent)
        defer { waiters.subtract(1, ordering: .sequentiallyConsistent) }
        while !ready() {
            let left = ContinuousClock.now.duration(to: deadline)
            if left <= .zero { return false }
            _ = condition.wait(until: Date(timeIntervalSinceNow: left.seconds))
        }
        return true
    }

    /// Wakes every waiter so that it looks at its condition again.
    package func notify() {
        guard waiters.load(ordering: .sequentiallyConsistent) > 0 else { return }
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }
}
