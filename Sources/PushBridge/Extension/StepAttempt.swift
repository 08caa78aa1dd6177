import Dispatch
import Synchronization

/// One asynchronous step (Swift extension or external command) for one request.
///
/// It ends exactly once: with the first answer, a failure, or a timeout. It arms one
/// Dispatch timer (monotonic): at `timeLimit` the step is told time will expire
/// (`onExpire`) and the timer is re-armed for `grace`; an answer before that second firing
/// still counts (`afterExpire: true`), none is a timeout. Later answers are ignored and
/// reported to `ignored` (for a debug log line).
final class StepAttempt: Sendable {
    /// How the step ended.
    enum Outcome: Sendable {
        case answered(NotificationContent, afterExpire: Bool)
        case timedOut
        case failed(String)
    }

    private enum Phase { case running, expiring, finished }

    private struct State {
        var phase = Phase.running
        var timer: DispatchSourceTimer?
        var onExpire: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())
    private let timeLimit: Duration
    private let grace: Duration
    private let queue: DispatchQueue
    private let onFinish: @Sendable (Outcome) -> Void
    private let ignored: @Sendable (String) -> Void

    init(timeLimit: Duration, grace: Duration, queue: DispatchQueue,
         ignored: @escaping @Sendable (String) -> Void,
         onFinish: @escaping @Sendable (Outcome) -> Void) {
        self.timeLimit = timeLimit
        self.grace = grace
        self.queue = queue
        self.ignored = ignored
        self.onFinish = onFinish
    }

    /// Starts the time limit; `onExpire` runs once when it passes without an answer.
    func arm(onExpire: @escaping @Sendable () -> Void) {
        let deadline = DispatchTime.now() + timeLimit.dispatchInterval
        let queue = self.queue
        state.withLock { s in
            guard s.phase == .running, s.timer == nil else { return }
            // Made inside the lock: the timer (not Sendable) lives in the state's region.
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.setEventHandler { [weak self] in self?.timerFired() }
            s.onExpire = onExpire
            s.timer = timer
            timer.schedule(deadline: deadline)
            timer.activate()
        }
    }

    /// The step's answer; only the first answer (or failure) counts.
    func answer(_ content: NotificationContent) {
        let outcome: Outcome? = state.withLock { s in
            guard s.phase != .finished else { return nil }
            let late = s.phase == .expiring
            Self.close(&s)
            return .answered(content, afterExpire: late)
        }
        if let outcome { onFinish(outcome) } else { ignored("answer after the step had ended") }
    }

    /// The step failed (threw, crashed, answered garbage).
    func fail(_ reason: String) {
        let finished: Bool = state.withLock { s in
            guard s.phase != .finished else { return false }
            Self.close(&s)
            return true
        }
        if finished { onFinish(.failed(reason)) } else { ignored("failure after the step had ended: \(reason)") }
    }

    /// The step stopped without answering after being told time will expire (a cancelled
    /// task): end as a timeout now instead of waiting out the grace.
    func gaveUp() {
        let finished: Bool = state.withLock { s in
            guard s.phase == .expiring else { return false }
            Self.close(&s)
            return true
        }
        if finished { onFinish(.timedOut) }
    }

    /// `true` once the step has ended.
    var isFinished: Bool { state.withLock { $0.phase == .finished } }

    private func timerFired() {
        enum Action { case expire((@Sendable () -> Void)?), timeout, none }
        let grace = self.grace
        let action: Action = state.withLock { s in
            switch s.phase {
            case .running:
                s.phase = .expiring
                s.timer?.schedule(deadline: DispatchTime.now() + grace.dispatchInterval)
                return .expire(s.onExpire)
            case .expiring:
                Self.close(&s)
                return .timeout
            case .finished:
                return .none
            }
        }
        switch action {
        case .expire(let onExpire): onExpire?()
        case .timeout: onFinish(.timedOut)
        case .none: break
        }
    }

    private static func close(_ s: inout State) {
        s.phase = .finished
        s.timer?.cancel()
        s.timer = nil
        s.onExpire = nil
    }
}
