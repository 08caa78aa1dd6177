/// Waits until `condition` holds, checking every 10 ms; throws after `timeout`.
///
/// For states nobody announces (a file's content, an HTTP answer, a process's end). When
/// something does announce the change, wait on that instead: `LogCollector.waitFor`,
/// `TestClient.waitForMessages`, `TestClient.waitForEvent` (see `Watched`).
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
