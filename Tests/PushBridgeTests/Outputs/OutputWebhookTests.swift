import Foundation
import Testing
@testable import PushBridge
@testable import PushBridgeCLI

/// The webhook output against a real HTTP server on loopback (integration/outputs/hook_server.py).
@Suite("Integration: webhook output")
struct OutputWebhookTests {
    @Test("a body template sees message.attachments: the picture's URL, type and size reach the endpoint")
    func attachmentsInTheTemplate() async throws {
        let s = try await Scenario.start()
        let hook = try await HookServer.start()
        let bridge = try InProcessBridge.start(yaml: s.yaml("""
            routes:
              - name: door
                topic: \(s.ns)/in/door/event
                alert: {title: "Door", body: "{{ payload.who }} is at the door"}
                attachments: [{identifier: snapshot, from_topic: "\(s.ns)/in/door/snapshot"}]
            attachments: {public_url: "https://pictures.example.com"}
            outputs:
              - name: chat
                webhook:
                  url: \(hook.url("/ok/chat"))
                  body: '{"text":"{{ message.title }}","image":"{{ message.attachments[0].url }}","type":"{{ message.attachments[0].type }}","size":{{ message.attachments[0].size }},"count":{{ message.attachments | length }}}'
            """))
        try await s.waitUntilOnline()
        try s.publish("door/snapshot", bytes: OutputAttachmentTests.png)
        try s.publish("door/event", #"{"who":"Alice"}"#)
        let display = try JSONValue.parse(try await s.waitFor(s.display("door/event"))[0].payload)
        let url = try #require(display["attachments"]?[0]?["url"]?.stringValue)
        #expect(url.hasPrefix("https://pictures.example.com/attachments/") && url.hasSuffix("/snapshot.png"))
        try await eventually("the chat request") { try !hook.requests(under: "/ok/chat").isEmpty }
        let body = try #require(try hook.requests(under: "/ok/chat").first?["body"]?.stringValue)
        #expect(try JSONValue.parse(body) == .object(["text": .string("Door"), "image": .string(url), "type": .string("image/png"),
                                                      "size": .int(Int64(OutputAttachmentTests.png.count)), "count": .int(1)]))
        try await bridge.stop()
        await hook.stop()
    }

    @Test("body template and headers; 503 retried; 400 dead-lettered; 429 waits for Retry-After")
    func webhook() async throws {
        let s = try await Scenario.start()
        let hook = try await HookServer.start()
        let bridge = try InProcessBridge.start(yaml: s.yaml("""
            routes:
              - name: door
                topic: \(s.ns)/in/door/+
                alert: {title: "Door", body: "{{ payload.who }} is at the door", category: DOORBELL}
            outputs:
              - name: tmpl
                webhook:
                  url: \(hook.url("/ok/tmpl"))
                  headers: {X-Token: abc, X-Source: pushbridge}
                  body: '{"text":"{{ message.title }}: {{ message.body }}","id":"{{ message.id }}","route":"{{ route }}"}'
              - name: flaky
                webhook: {url: "\(hook.url("/flaky/2/f"))"}
              - name: bad
                webhook: {url: "\(hook.url("/bad/b"))", method: PUT}
              - name: limited
                webhook: {url: "\(hook.url("/limited/2/l"))"}
            """))
        try await s.waitUntilOnline()
        try s.publish("door/front", #"{"who":"Alice"}"#)
        let display = try await s.waitFor(s.display("door/front"))[0]
        let displayJSON = try JSONValue.parse(display.payload)
        let id = try #require(displayJSON["id"]?.stringValue)

        // The template, the configured headers, the display message's fields.
        try await eventually("tmpl request") { try !hook.requests(under: "/ok/tmpl").isEmpty }
        let t = try hook.requests(under: "/ok/tmpl")
        #expect(t.count == 1)
        #expect(t[0]["method"] == .string("POST"))
        #expect(t[0]["body"] == .string(#"{"text":"Door: Alice is at the door","id":"\#(id)","route":"door"}"#))
        #expect(t[0]["headers"]?["X-Token"] == .string("abc"))
        #expect(t[0]["headers"]?["X-Source"] == .string("pushbridge"))

        // 503, 503, then 200: the default body is the display JSON, the same each time.
        try await eventually("flaky delivered", timeout: .seconds(20)) { try hook.requests(under: "/flaky").count == 3 }
        let f = try hook.requests(under: "/flaky")
        #expect(f.allSatisfy { $0["body"]?.stringValue.map { try? JSONValue.parse($0) } == displayJSON })
        #expect(f[0]["headers"]?["Content-Type"] == .string("application/json"))

        // 400: no retry, a dead letter with the status and the answer's first 200 bytes.
        let dead = try await s.waitFor(s.dead("door/front"))[0]
        let d = try JSONValue.parse(dead.payload)
        #expect(d["reason"] == .string("OutputRejected"))
        #expect(d["output"] == .string("bad"))
        #expect(d["status"] == .int(400))
        #expect(d["detail"] == .string(String(repeating: "E", count: 150) + String(repeating: "x", count: 50)))
        #expect(d["source_topic"] == .string(s.input("door/front")))
        #expect(d["route"] == .string("door"))
        #expect(d["payload"]?.stringValue.map { try? JSONValue.parse($0) } == displayJSON)
        #expect(jsonString(d["received_at"]).hasSuffix("Z"))
        #expect(dead.property("reason") == "OutputRejected")
        #expect(try hook.requests(under: "/bad").map { $0["method"] } == [.string("PUT")])

        // 429 with Retry-After: 2 — the second attempt comes no sooner (the backoff alone would be ~1 s).
        try await eventually("limited delivered", timeout: .seconds(20)) { try hook.requests(under: "/limited").count == 2 }
        let l = try hook.requests(under: "/limited")
        let gap = (l[1]["at"]?.numberValue ?? 0) - (l[0]["at"]?.numberValue ?? 0)
        #expect(gap >= 1.9, "waited \(gap) s")

        let stats = try #require(bridge.bridge.outputs?.snapshots())
        let byName = Dictionary(uniqueKeysWithValues: stats.map { ($0.name, $0) })
        #expect(byName["tmpl"]?.delivered == 1)
        #expect(byName["flaky"]?.delivered == 1 && byName["flaky"]?.retried == 2)
        #expect(byName["bad"]?.failed == 1 && byName["bad"]?.delivered == 0 && byName["bad"]?.retried == 0)
        #expect(byName["limited"]?.delivered == 1 && byName["limited"]?.retried == 1)
        #expect(stats.allSatisfy { $0.pending == 0 })

        // The stats document's `outputs` object (and its parse) and /metrics.
        let snapshot = bridge.bridge.snapshot()
        let doc = try JSONValue.parse(snapshot.json())
        #expect(doc["outputs"]?["flaky"]?["kind"] == .string("webhook"))
        #expect(doc["outputs"]?["flaky"]?["delivered"] == .int(1))
        #expect(doc["outputs"]?["flaky"]?["retried"] == .int(2))
        #expect(doc["outputs"]?["bad"]?["failed"] == .int(1))
        #expect(doc["outputs"]?["tmpl"]?["pending"] == .int(0))
        #expect(doc["outputs"]?["tmpl"]?["latency_ms"]?["p99"]?.numberValue != nil)
        // Parsed back (latencies are written to 3 decimals).
        let parsed = StatsSnapshot.parse(doc)?.outputs ?? []
        #expect(parsed.map(\.name) == ["bad", "flaky", "limited", "tmpl"])
        #expect(parsed.map(\.retried) == [0, 2, 1, 0] && parsed.map(\.failed) == [1, 0, 0, 0])
        #expect(abs((parsed.first { $0.name == "limited" }?.latencyP99ms ?? 0) - (byName["limited"]?.latencyP99ms ?? -1)) < 0.01)
        let metrics = prometheusText(snapshot)
        #expect(metrics.contains(#"pushbridge_output_deliveries_total{output="flaky",result="retried"} 2"#), "\(metrics)")
        #expect(metrics.contains(#"pushbridge_output_deliveries_total{output="bad",result="failed"} 1"#))
        #expect(metrics.contains(#"pushbridge_output_pending{output="limited"} 0"#))
        #expect(metrics.contains(#"pushbridge_output_latency_seconds{output="tmpl",quantile="0.99"} "#))
        try await bridge.stop()
        await hook.stop()
    }

    @Test("a slow output delays neither the display topic nor another output")
    func slowOutputIsolated() async throws {
        let s = try await Scenario.start()
        let hook = try await HookServer.start()
        let bridge = try InProcessBridge.start(yaml: s.yaml("""
            routes:
              - {name: door, topic: "\(s.ns)/in/door/+", alert: {title: Door, body: "{{ payload.who }}"}}
            extension: {time_limit: 1s}  # the stop's bound: the slow output is not waited for long
            outputs:
              - {name: slow, concurrency: 1, timeout: 120s, webhook: {url: "\(hook.url("/slow/60/s"))"}}
              - {name: quick, webhook: {url: "\(hook.url("/ok/q"))"}}
            """))
        try await s.waitUntilOnline()
        for n in 0..<3 { try s.publish("door/\(n)", #"{"who":"n\#(n)"}"#) }
        // All three displayed and delivered to the quick output while the slow one still holds its first.
        for n in 0..<3 { _ = try await s.waitFor(s.display("door/\(n)")) }
        try await eventually("quick output got all three") { try hook.requests(under: "/ok/q").count == 3 }
        let slow = try #require(bridge.bridge.outputs?.snapshots().first { $0.name == "slow" })
        #expect(slow.delivered == 0 && slow.pending == 3, "\(slow)")
        #expect(try hook.requests(under: "/slow").count == 1, "concurrency 1: one request in flight")
        try await bridge.stop()
        await hook.stop()
    }
}
