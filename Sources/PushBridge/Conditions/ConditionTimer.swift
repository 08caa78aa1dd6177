import Dispatch

/// The conditions' one timer: armed for the earliest due repeat or step of all of them
/// (`ConditionEngine.nextDue`), re-armed after each firing and each change. No polling:
/// with nothing due it is not armed at all.
///
/// `wall` is the clock the engine's times are read on (a fake one in tests). With
/// `automatic: false` nothing is armed: a test advances its clock and calls `fire(_:)`.
final class ConditionTimer: Sendable {
    /// What is done with the work that fell due, and when (the wall clock's reading).
    typealias Run = @Sendable ([ConditionEngine.Work], Double) -> Void

    private let engine: ConditionEngine
    private let wall: @Sendable () -> Double
    /// `nil` when not automatic. Its action runs on a serial queue: one firing at a time.
    private let timer: WallDueTimer?

    /// A timer not running yet (`start(_:)` runs it).
    init(engine: ConditionEngine, wall: @escaping @Sendable () -> Double, automatic: Bool = true) {
        self.engine = engine
        self.wall = wall
        timer = automatic ? WallDueTimer(queue: DispatchQueue(label: "pushbridge.conditions")) : nil
    }

    /// Runs the timer: each time work falls due, `run` gets it. Call it once.
    func start(_ run: @escaping Run) {
        // Armed before it had its action, a firing did nothing: `start` forgets it, and it is armed again.
        timer?.start { [weak self] in self?.fire(run) }
        rearm()
    }

    /// Arms the timer for the earliest due time, unless it is armed for that already.
    func rearm() {
        timer?.arm(for: engine.nextDue, wall: wall)
    }

    /// Hands what is due now to `run`, then re-arms.
    func fire(_ run: Run) {
        timer?.forget()
        let now = wall()
        let work = engine.due(now: now)
        if !work.isEmpty { run(work, now) }
        rearm()
    }

    /// Stops the timer (a stopping bridge).
    func stop() { timer?.cancel() }
}
