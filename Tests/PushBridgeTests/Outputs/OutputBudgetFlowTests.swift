import Foundation
import Testing
@testable import PushBridge

/// An output's daily budget against a real broker and a real ntfy: digest from 80 %, one
/// summary per route after 15 minutes, only critical alerts from 100 %, the day change, and
/// a SIGKILL with alerts held.
@Suite("Integration: output budgets", .serialized)
struct OutputBudgetFlowTests {
    static func routes(_ s: Scenario) -> String {
        """
        routes:
          - name: door
            topic: \(s.ns)/in/door/+
            alert: {title: "{{ payload.t }}", body: "{{ payload.t }} body", interruption_level: "{{ payload.level | default('active') }}"}
        """
    }

    @Test("per_day 5 with a fake clock: 1–4 go, 5+ held and summarised after 15 minutes, then only critical; midnight resets")
    func budgetDay() async throws {
        let ntfy = try await NtfyServer.make()
        let s = try await Scenario.start()
        let topic = "pb-\(UUID().uuidString.prefix(8))"
        let clock = FakeWallClock(OutputBudgetTests.localNoon())
        let bridge = try InProcessBridge.start(yaml: s.yaml(Self.routes(s) + """

            journal: {path: \(try makeTempDirectory())}
            outputs:
              - name: phones
                ntfy: {url: "\(ntfy.url(topic))"}
                budget: {per_day: 5}
            """), clock: clock.stageClock)
        try await s.waitUntilOnline()
        let outputs = try #require(bridge.bridge.outputs)
        func alert(_ t: String, level: String = "active") async throws {
            try s.publish("door/\(t)", #"{"t":"\#(t)","level":"\#(level)"}"#)
            _ = try await s.waitFor(s.display("door/\(t)"))
        }
        for n in 1...4 { try await alert("a\(n)") }
        try await eventually("4 in ntfy", timeout: .seconds(20)) { try ntfy.messages(topic).count == 4 }
        #expect(outputs.snapshots()[0].budgetUsed == 4)
        try await alert("a5")
        try await alert("a6")
        #expect(outputs.snapshots()[0].budgetDigested == 2)
        #expect(bridge.log.lines.contains { $0.contains("4 of its 5 deliveries a day used") })
        clock.advance(14 * 60)
        bridge.fireConditions()
        #expect(outputs.snapshots()[0].budgetUsed == 4, "no summary before 15 minutes")
        clock.advance(61)
        bridge.fireConditions()
        try await eventually("the summary in ntfy", timeout: .seconds(20)) { try ntfy.messages(topic).count == 5 }
        let summary = try ntfy.messages(topic).last!
        #expect(summary["title"] == .string("2 more: door"))
        #expect(summary["message"] == .string("a5, a6"))
        #expect(outputs.snapshots()[0].budgetUsed == 5, "the summary counts")
        #expect(bridge.log.lines.contains { $0.contains("its 5 deliveries a day are used") })
        // Used up: the rest is dropped, critical ones still go (and count).
        try await alert("a7")
        try await alert("fire", level: "critical")
        try await eventually("the critical alert in ntfy", timeout: .seconds(20)) { try ntfy.messages(topic).count == 6 }
        #expect(try ntfy.messages(topic).last?["title"] == .string("fire"))
        #expect(try ntfy.messages(topic).last?["priority"] == .int(5))
        let snap = outputs.snapshots()[0]
        #expect(snap.budgetDropped == 1 && snap.budgetDigested == 2 && snap.budgetUsed == 6)
        let stats = try JSONValue.parse(bridge.bridge.snapshot().json())["outputs"]?["phones"]
        #expect(stats?["budget_used"] == .int(6) && stats?["budget_dropped"] == .int(1) && stats?["budget_digested"] == .int(2))
        let metrics = prometheusText(bridge.bridge.snapshot())
        #expect(metrics.contains(#"pushbridge_output_budget_total{output="phones",result="dropped"} 1"#))
        #expect(metrics.contains(#"pushbridge_output_budget_total{output="phones",result="digested"} 2"#))
        #expect(metrics.contains(#"pushbridge_output_budget_used{output="phones"} 6"#))
        // The next local day starts from nothing.
        clock.advance(86_400)
        try await alert("b1")
        try await eventually("the next day's first alert", timeout: .seconds(20)) { try ntfy.messages(topic).count == 7 }
        #expect(outputs.snapshots()[0].budgetUsed == 1)
        try await bridge.stop()
        await ntfy.stop()
    }

    @Test("SIGKILL with alerts held for a summary: after the restart the summary is delivered exactly once")
    func killWithAlertsHeld() async throws {
        let ntfy = try await NtfyServer.make()
        let s = try await Scenario.start()
        let topic = "pb-\(UUID().uuidString.prefix(8))"
        let file = try writeTempFile(s.yaml(Self.routes(s) + """

            journal: {path: \(try makeTempDirectory())}
            outputs:
              - name: phones
                concurrency: 1
                ntfy: {url: "\(ntfy.url(topic))"}
                budget: {per_day: 10}
            """))
        let first = try await PushbridgeBinary.start(configFile: file, broker: s.broker)
        defer { first.send(SIGKILL) }
        try await s.waitUntilOnline()
        for n in 1...8 { try s.publish("door/a\(n)", #"{"t":"a\#(n)"}"#) }
        try await eventually("8 in ntfy", timeout: .seconds(20)) { try ntfy.messages(topic).count == 8 }
        for n in 9...11 { try s.publish("door/a\(n)", #"{"t":"a\#(n)"}"#) }
        try await s.waitForStats("3 held", timeout: .seconds(20)) { $0["outputs"]?["phones"]?["budget_digested"] == .int(3) }
        first.send(SIGKILL)
        _ = await first.waitForExit(timeout: .seconds(10))
        #expect(try ntfy.messages(topic).count == 8)

        for run in 0..<2 {
            let next = try await PushbridgeBinary.start(configFile: file, broker: s.broker)
            defer { next.send(SIGKILL) }
            try await s.waitUntilOnline(times: 2 + run)
            // A critical alert after the start: it goes whatever the budget, after the summary.
            try s.publish("door/c\(run)", #"{"t":"c\#(run)","level":"critical"}"#)
            try await eventually("c\(run) in ntfy", timeout: .seconds(20)) {
                try ntfy.messages(topic).contains { $0["title"] == .string("c\(run)") }
            }
            _ = await next.terminate(grace: .seconds(10))
        }
        let summaries = try ntfy.messages(topic).filter { ($0["title"]?.stringValue ?? "").hasSuffix("more: door") }
        #expect(summaries.count == 1, "\(summaries)")
        #expect(summaries.first?["title"] == .string("3 more: door"))
        #expect(summaries.first?["message"] == .string("a9, a10, a11"))
        #expect(try ntfy.messages(topic).count == 11)
        await ntfy.stop()
    }
}
