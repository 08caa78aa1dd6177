import Foundation
import Testing
@testable import PushBridge

/// An escalation step sent through other outputs, and an output's fallback, against a real
/// broker, the loopback webhook receiver and a real ntfy.
@Suite("Integration: escalation to other outputs, fallback", .serialized)
struct OutputEscalationFallbackTests {
    @Test("a step with outputs: [second] reaches second (whose routes name another route) and the route's own output")
    func stepReachesAnotherOutput() async throws {
        let hook = try await HookServer.start()
        let s = try await Scenario.start()
        let clock = FakeWallClock(1_800_000_000)
        let bridge = try InProcessBridge.start(yaml: s.yaml("""
            routes:
              - name: leak
                topic: \(s.ns)/in/zigbee2mqtt/+
                alert: {title: "Water leak", body: "{{ topic }}"}
                condition:
                  key: "{{ topic }}"
                  active: 'payload.water_leak == true'
                  escalate:
                    - {after: 1m, outputs: [second], set: {title: "Still wet"}}
              - {name: other, topic: "\(s.ns)/in/other", alert: {title: Other}}
            outputs:
              - name: first
                routes: [leak]
                webhook: {url: "\(hook.url("/ok/first"))"}
              - name: second
                routes: [other]
                webhook: {url: "\(hook.url("/ok/second"))"}
            """), clock: clock.stageClock)
        try await s.waitUntilOnline()
        // Zigbee2MQTT's water leak sensor report.
        try s.publish("zigbee2mqtt/kitchen_leak", #"{"battery":97,"battery_low":false,"linkquality":120,"tamper":false,"water_leak":true}"#)
        try await eventually("the raise at first") { try hook.requests(under: "/ok/first").count == 1 }
        clock.advance(30)
        bridge.fireConditions()
        clock.advance(31)
        bridge.fireConditions()
        try await eventually("the step at second") { try hook.requests(under: "/ok/second").count == 1 }
        try await eventually("the step at first too") { try hook.requests(under: "/ok/first").count == 2 }
        let step = try JSONValue.parse(hook.requests(under: "/ok/second")[0]["body"]?.stringValue ?? "")
        #expect(step["title"] == .string("Still wet"))
        #expect(step["condition"]?["state"] == .string("escalated"))
        #expect(step["route"] == .string("leak"))
        let raise = try JSONValue.parse(hook.requests(under: "/ok/first")[0]["body"]?.stringValue ?? "")
        #expect(raise["condition"]?["state"] == .string("raised"), "the raise went to the route's output only")
        try await bridge.stop()
        #expect(try hook.requests(under: "/ok/second").count == 1)
        await hook.stop()
    }

    static func fallbackYAML(_ s: Scenario, port: Int, ntfy: NtfyServer, topic: String, journal: String?, after: String) -> String {
        s.yaml("""
            routes:
              - {name: door, topic: "\(s.ns)/in/door/+", alert: {title: "Door {{ payload.n }}", body: "opened {{ payload.n }}"}}
              - {name: other, topic: "\(s.ns)/in/other", alert: {title: Other}}
            \(journal.map { "journal: {path: \($0)}" } ?? "")
            outputs:
              - name: hook
                timeout: 2s
                webhook: {url: "http://127.0.0.1:\(port)/bad/hook"}
                fallback: phones
                fallback_after: \(after)
              - name: phones
                routes: [other]
                ntfy: {url: "\(ntfy.url(topic))"}
            """, clientID: "fallback-\(port)")
    }

    @Test("fake clock: a delivery not accepted within fallback_after goes to the fallback once, also across a restart; the first output's dead letter still comes")
    func fallbackOnceAcrossARestart() async throws {
        let ntfy = try await NtfyServer.make()
        let s = try await Scenario.start()
        let topic = "pb-\(UUID().uuidString.prefix(8))"
        let port = try LoopbackPorts.free()  // nothing listens here until the end
        let yaml = Self.fallbackYAML(s, port: port, ntfy: ntfy, topic: topic, journal: try makeTempDirectory(), after: "1m")
        let clock = FakeWallClock(1_800_000_000)
        let first = try InProcessBridge.start(yaml: yaml, clock: clock.stageClock)
        try await s.waitUntilOnline()
        try s.publish("door/front", #"{"n":1}"#)
        _ = try await s.waitFor(s.display("door/front"))
        _ = try await first.log.waitFor("the hook retrying", timeout: .seconds(20)) { $0.contains("output 'hook'") && $0.contains("retrying") }
        let outputs = try #require(first.bridge.outputs)
        clock.advance(59)
        first.fireConditions()
        #expect(outputs.snapshots()[0].fellBack == 0, "not before fallback_after")
        clock.advance(2)
        first.fireConditions()
        try await eventually("the fallback in ntfy", timeout: .seconds(20)) { try ntfy.messages(topic).count == 1 }
        #expect(outputs.snapshots()[0].fellBack == 1)
        #expect(first.log.lines.contains { $0.lowercased().contains("warn") && $0.contains("handed to its fallback 'phones'") }, "\(first.log.lines.suffix(5))")
        let got = try ntfy.messages(topic)[0]
        #expect(got["title"] == .string("Door 1") && got["message"] == .string("opened 1"))
        clock.advance(3600)
        first.fireConditions()
        #expect(outputs.snapshots()[0].fellBack == 1, "once per delivery")
        let stats = first.bridge.snapshot().json()
        #expect(try JSONValue.parse(stats)["outputs"]?["hook"]?["fell_back"] == .int(1))
        #expect(prometheusText(first.bridge.snapshot()).contains(#"pushbridge_output_fell_back_total{output="hook"} 1"#))
        try await first.stop()

        // After a restart the delivery is still the hook's (journal) but not handed again.
        clock.advance(3600)
        let second = try InProcessBridge.start(yaml: yaml, clock: clock.stageClock)
        try await s.waitUntilOnline(times: 2)
        second.fireConditions()
        #expect(second.bridge.outputs?.snapshots()[0].fellBack == 0)
        // The hook comes up and refuses it for good: its dead letter, as without a fallback.
        let server = try ManagedProcess("/usr/bin/python3", ["-u", repositoryRoot + "/integration/outputs/hook_server.py", String(port)])
        let dead = try JSONValue.parse(try await s.waitFor(s.dead("door/front"), timeout: .seconds(30))[0].payload)
        #expect(dead["reason"] == .string("OutputRejected") && dead["output"] == .string("hook") && dead["status"] == .int(400))
        second.fireConditions()
        try await second.stop()
        #expect(try ntfy.messages(topic).count == 1, "handed to the fallback exactly once")
        _ = await server.terminate(grace: .seconds(2))
        await ntfy.stop()
    }

    @Test("real time: fallback_after 2s with the first output's service down")
    func fallbackInRealTime() async throws {
        let ntfy = try await NtfyServer.make()
        let s = try await Scenario.start()
        let topic = "pb-\(UUID().uuidString.prefix(8))"
        let bridge = try InProcessBridge.start(yaml: Self.fallbackYAML(s, port: try LoopbackPorts.free(), ntfy: ntfy, topic: topic,
                                                                       journal: nil, after: "2s"))
        try await s.waitUntilOnline()
        try s.publish("door/back", #"{"n":2}"#)
        try await eventually("the fallback in ntfy", timeout: .seconds(20)) { try ntfy.messages(topic).count == 1 }
        #expect(try ntfy.messages(topic)[0]["title"] == .string("Door 2"))
        #expect(bridge.bridge.outputs?.snapshots()[0].fellBack == 1)
        #expect(bridge.bridge.outputs?.snapshots()[0].pending == 1, "the hook keeps retrying it")
        try await bridge.stop()
        await ntfy.stop()
    }
}
