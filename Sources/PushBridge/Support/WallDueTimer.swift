import Dispatch
import Synchronization

/// A `DueTimer` armed for a time on a wall clock (UNIX seconds, a fake clock in tests) that
/// remembers the time it is armed for, so that arming it again for the same time does nothing.
/// The conditions' and the digests' one timers are each one of these.
final class WallDueTimer: Sendable {
    private let timer: DueTimer
    /// The due time the timer is armed for (`nil`: not armed).
    private let armed = Mutex<Double?>(nil)

    /// An idle timer whose action will run on `queue`.
    init(queue: DispatchQueue) {
        timer = DueTimer(queue: queue)
    }

    /// Gives the timer its action and forgets any arming made before (a firing before the
    /// action did nothing): the next `arm(for:wall:)` arms it.
    func start(_ action: @escaping @Sendable () -> Void) {
        timer.start(action)
        forget()
    }

    /// Forgets the time it is armed for (a firing consumed it).
    func forget() {
        armed.withLock { $0 = nil }
    }

    /// Arms the timer for `due` on `wall`'s clock (`nil`: disarms it), unless it is armed for
    /// that already. A due time in the past fires at once; one over a year away waits a year.
    func arm(for due: Double?, wall: () -> Double) {
        let changed = armed.withLock { current -> Bool in
            guard current != due else { return false }
            current = due
            return true
        }
        guard changed else { return }
        guard let due else { return timer.disarm() }
        timer.arm(after: .seconds(min(max(0, due - wall()), 86_400 * 365)), leeway: .milliseconds(20))
    }

    /// Stops it for good (a stopping bridge).
    func cancel() {
        timer.cancel()
    }
}
