import Foundation
import Testing
@testable import PushBridge

/// `run()` honours cancellation like a stop request (issue 13: the old wait loop swallowed
/// the cancellation and spun a core).
@Suite("Integration: lifecycle")
struct LifecycleTests {
    @Test("cancelling the task that runs run() drains, publishes offline and returns")
    func cancellationStops() async throws {
        let s = try await Scenario.start()
        let config = try ConfigLoader.load(text: s.yaml("""
            routes: [{name: r, topic: "\(s.ns)/in/#"}]
            """), path: "bridge.yml", environment: [:]).get()
        let bridge = try Bridge(config: config, logger: Logger(level: .error))
        let task = Task { try await bridge.run() }
        try await s.waitUntilOnline()
        task.cancel()
        let finished = Task {
            _ = try? await task.value
            return true
        }
        try await eventually("run() returned after cancellation", timeout: .seconds(30)) {
            s.texts(on: s.statusTopic).last == "offline"
        }
        #expect(await finished.value)
    }
}
