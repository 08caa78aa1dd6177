import Dispatch
import Synchronization

/// One asynchronous step's answer for one request, raced against its time limit.
///
/// The step reports with `answer`, `fail` or `gaveUp`, from any thread; only the first
/// report counts. `outcome` waits for it on one Dispatch timer (monotonic): at `timeLimit`
/// it runs `onExpire` (Apple's `serviceExtensionTimeWillExpire()`) and waits `grace` more;
/// an answer within it counts (`afterExpire: true`), none is a timeout.
final class StepAttempt: Sendable {
    /// How the step ended.
    enum Outcome: Sendable {
        case answered(NotificationContent, afterExpire: Bool)
        case timedOut
        case failed(String)
    }

    private struct State {
        var ended = false
        var expiring = false
        /// Reported before `outcome` began to wait.
        var early: Outcome?
        var waiter: CheckedContinuation<Outcome, Never>?
        var timer: DueTimer?
    }

    private let state = Mutex(State())

    /// The step's answer.
    func answer(_ content: NotificationContent) { end { .answered(content, afterExpire: $0) } }

    /// The step failed (threw, crashed, answered garbage).
    func fail(_ reason: String) { end { _ in .failed(reason) } }

    /// The step stopped without answering once told time will expire (a cancelled task):
    /// a timeout now, without waiting out the grace.
    func gaveUp() { end { $0 ? .timedOut : nil } }

    /// The outcome: the first report, or a timeout. The time limit starts now.
    func outcome(timeLimit: Duration, grace: Duration, queue: DispatchQueue,
                 onExpire: @escaping @Sendable () -> Void) async -> Outcome {
        await withCheckedContinuation { continuation in
            let early: Outcome? = state.withLock { s in
                if let early = s.early { return early }
                s.waiter = continuation
                let timer = DueTimer(queue: queue)
                timer.start { [weak self] in self?.timerFired(grace: grace, onExpire: onExpire) }
                timer.arm(after: timeLimit)
                s.timer = timer
                return nil
            }
            if let early { continuation.resume(returning: early) }
        }
    }

    private func timerFired(grace: Duration, onExpire: @Sendable () -> Void) {
        let first: Bool = state.withLock { s in
            guard !s.ended, !s.expiring else { return false }
            s.expiring = true
            s.timer?.arm(after: grace)
            return true
        }
        if first { onExpire() } else { end { _ in .timedOut } }
    }

    /// Ends the step with `make(afterExpire)`, unless it has ended or `make` gives `nil`.
    private func end(_ make: (_ afterExpire: Bool) -> Outcome?) {
        let resume: (CheckedContinuation<Outcome, Never>, Outcome)? = state.withLock { s in
            guard !s.ended, let outcome = make(s.expiring) else { return nil }
            s.ended = true
            s.timer?.cancel()
            s.timer = nil
            guard let waiter = s.waiter else {
                s.early = outcome
                return nil
            }
            s.waiter = nil
            return (waiter, outcome)
        }
        if let (waiter, outcome) = resume { waiter.resume(returning: outcome) }
    }
}
