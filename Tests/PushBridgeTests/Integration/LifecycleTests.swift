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
        let bridge = try InProcessBridge.start(yaml: s.yaml("""
            routes: [{name: r, topic: "\(s.ns)/in/#"}]
            """), level: .error)
        try await s.waitUntilOnline()
        bridge.cancel()
        let finished = Task {
            _ = try? await bridge.finished()
            return true
        }
        try await s.waitForLastText(on: s.statusTopic, "offline", timeout: .seconds(30))  // run() returned after cancellation
        #expect(await finished.value)
    }
}
