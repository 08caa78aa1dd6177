/// Waits until `condition` holds, checking every 10 ms; throws after `timeout`.
///
/// The rule: poll only what nobody announces — a file's or a database's content (the
/// broker's log file, a journal, ntfy's cache), an HTTP answer, a port that starts
/// accepting, a process's end, a library object's internal state or counter, a weak
/// reference's release. When the condition reads something that announces its changes,
/// wait on that announcement instead; it wakes the wait at once and still fails after its
/// timeout with what was awaited:
/// - a `TestClient`'s messages: `waitForMessages(count:)`, `waitForMessages(_:until:)`,
///   `waitForDistinct` (thousands of messages), `Scenario.waitFor`, `waitForStats`,
///   `waitForLastText`, `waitUntilOnline`;
/// - its connection events and acknowledgements: `waitForEvent`, `waitForEvents(_:count:matching:)`,
///   `waitUntilConnected`, `waitUntilSubscribed`, `waitForPublished`, `waitUntilAcknowledged`;
/// - log lines (a bridge's, a child's stderr): `LogCollector.waitFor`;
/// - the stats topic: `StatsWatcher.waitFor`; a value of the test's own: `Watched`.
func eventually(_ what: @autoclosure () -> String = "condition", timeout: Duration = .seconds(10),
                _ condition: () throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while try !condition() {
        if ContinuousClock.now >= deadline {
            throw ProcessError(description: "timed out after \(timeout) waiting for \(what())")
        }
        try await Task.sleep(for: .milliseconds(10))
    }
}
