import Dispatch
import Synchronization

/// The conditions' one timer: armed for the earliest due repeat or step of all of them
/// (`ConditionEngine.nextDue`), re-armed after each firing and each change. No polling:
/// with nothing due it is not armed at all.
///
/// `wall` is the clock the engine's times are read on (a fake one in tests). With
/// `automatic: false` nothing is armed: a test advances its clock and calls `fire()`.
final class ConditionTimer: Sendable {
    private let engine: ConditionEngine
    private let wall: @Sendable () -> Double
    private let run: @Sendable ([ConditionEngine.Work], Double) -> Void
    private let queue = DispatchQueue(label: "pushbridge.conditions")
    /// The Dispatch timer (`nil` when not automatic); touched only under its lock.
    private let source: Mutex<DispatchSourceTimer?>
    /// The due time the timer is armed for (`nil`: not armed).
    private let armed = Mutex<Double?>(nil)

    init(engine: ConditionEngine, wall: @escaping @Sendable () -> Double, automatic: Bool = true,
         run: @escaping @Sendable ([ConditionEngine.Work], Double) -> Void) {
        self.engine = engine
        self.wall = wall
        self.run = run
        if automatic {
            source = Mutex(DispatchSource.makeTimerSource(queue: queue))
            source.withLock { timer in
                timer?.schedule(deadline: .distantFuture)
                timer?.setEventHandler { [weak self] in self?.fire() }
                timer?.activate()
            }
        } else {
            source = Mutex(nil)
        }
    }

    /// Arms the timer for the earliest due time, unless it is armed for that already.
    func rearm() {
        guard source.withLock({ $0 != nil }) else { return }
        let due = engine.nextDue
        let changed = armed.withLock { current -> Bool in
            guard current != due else { return false }
            current = due
            return true
        }
        guard changed else { return }
        guard let due else {
            source.withLock { $0?.schedule(deadline: .distantFuture) }
            return
        }
        let delay = max(0, due - wall())
        let deadline = DispatchTime.now() + .nanoseconds(Int(min(delay, 86_400 * 365) * 1e9))
        source.withLock { $0?.schedule(deadline: deadline, leeway: .milliseconds(20)) }
    }

    /// Runs what is due now, then re-arms.
    func fire() {
        armed.withLock { $0 = nil }
        let now = wall()
        let work = engine.due(now: now)
        if !work.isEmpty { run(work, now) }
        rearm()
    }

    /// Stops the timer (a stopping bridge).
    func stop() { source.withLock { $0?.cancel() } }
}
