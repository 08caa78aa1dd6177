import Foundation
import Testing
@testable import PushBridge

/// A budget's summary with `state.redis`: the held alerts stay in the replica's journal, the
/// summary goes through the output's Redis stream like any delivery (none left in the journal's
/// table, the stream empty after).
@Suite("Integration: an output budget's summary on Redis streams")
struct RedisOutputBudgetTests {
    @Test("per_day 5 with a fake clock: 1–4 go, 5 and 6 held, their summary after 15 minutes goes through the stream once")
    func summaryThroughTheStream() async throws {
        let redis = try TestRedis()
        let ntfy = try await NtfyServer.make()
        let s = try await Scenario.start()
        let topic = "pb-\(UUID().uuidString.prefix(8))"
        let prefix = uniqueName("pb") + ":"
        let journal = try makeTempDirectory()
        let clock = FakeWallClock(OutputBudgetTests.localNoon())
        let bridge = try InProcessBridge.start(yaml: s.yaml(OutputBudgetFlowTests.routes(s) + """

            journal: {path: \(journal)}
            state:
              redis: {url: "redis://127.0.0.1:\(redis.port)/0", prefix: "\(prefix)", claim_after: 2s}
            outputs:
              - name: phones
                ntfy: {url: "\(ntfy.url(topic))"}
                budget: {per_day: 5}
            """), clock: clock.stageClock)
        try await s.waitUntilOnline()
        for t in ["a1", "a2", "a3", "a4", "a5", "a6"] {
            try s.publish("door/\(t)", #"{"t":"\#(t)"}"#)
            _ = try await s.waitFor(s.display("door/\(t)"))
        }
        try await eventually("4 in ntfy", timeout: .seconds(20)) { try ntfy.messages(topic).count == 4 }
        clock.advance(15 * 60 + 1)
        bridge.fireConditions()
        try await eventually("the summary in ntfy", timeout: .seconds(20)) { try ntfy.messages(topic).count == 5 }
        #expect(try ntfy.messages(topic).last?["title"] == .string("2 more: door"))
        try await eventually("the stream emptied") { try RedisOutputFlowTests.streamLength(redis, prefix + "out:phones") == 0 }
        try await bridge.stop()
        #expect(try ntfy.messages(topic).count == 5)
        var config = JournalConfig()
        config.path = journal
        let j = try Journal(config: config)
        #expect(try j.pendingOutputDeliveries(output: "phones") == 0, "nothing waits in the journal's table")
        await ntfy.stop()
    }
}
