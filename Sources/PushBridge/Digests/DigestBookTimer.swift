/// The digests' one timer: armed for the earliest window end of all routes and keys
/// (`nextDue`), re-armed after each firing and each alert offered. With nothing open it is
/// not armed at all.
extension DigestBook {
    /// What is done with the summaries that fell due, and when (the wall clock's reading).
    typealias Run = @Sendable ([DigestSummary], Double) -> Void

    /// Runs the timer: each time summaries fall due, `run` gets them. Call it once.
    func start(_ run: @escaping Run) {
        timer?.start { [weak self] in self?.fire(run) }
        // Armed before it had its action, a firing did nothing: arm it again.
        armed.withLock { $0 = nil }
        rearm()
    }

    /// Arms the timer for the earliest window end, unless it is armed for that already.
    func rearm() {
        guard let timer else { return }
        let due = nextDue
        let changed = armed.withLock { current -> Bool in
            guard current != due else { return false }
            current = due
            return true
        }
        guard changed else { return }
        guard let due else { return timer.disarm() }
        timer.arm(after: .seconds(min(max(0, due - wall()), 86_400 * 365)), leeway: .milliseconds(20))
    }

    /// Hands what is due now to `run`, then re-arms.
    func fire(_ run: Run) {
        armed.withLock { $0 = nil }
        let now = wall()
        let summaries = due(now: now)
        if !summaries.isEmpty { run(summaries, now) }
        rearm()
    }

    /// Stops the timer (a stopping bridge).
    func stop() { timer?.cancel() }
}
