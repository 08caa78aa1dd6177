/// The digests' one timer: armed for the earliest window end of all routes and keys
/// (`nextDue`), re-armed after each firing and each alert offered. With nothing open it is
/// not armed at all.
extension DigestBook {
    /// What is done with the summaries that fell due, and when (the wall clock's reading).
    typealias Run = @Sendable ([DigestSummary], Double) -> Void

    /// Runs the timer: each time summaries fall due, `run` gets them. Call it once.
    func start(_ run: @escaping Run) {
        // Armed before it had its action, a firing did nothing: `start` forgets it, and it is armed again.
        timer?.start { [weak self] in self?.fire(run) }
        rearm()
    }

    /// Arms the timer for the earliest window end, unless it is armed for that already.
    func rearm() {
        timer?.arm(for: nextDue, wall: wall)
    }

    /// Hands what is due now to `run`, then re-arms.
    func fire(_ run: Run) {
        timer?.forget()
        let now = wall()
        let summaries = due(now: now)
        if !summaries.isEmpty { run(summaries, now) }
        rearm()
    }

    /// Stops the timer (a stopping bridge).
    func stop() { timer?.cancel() }
}
