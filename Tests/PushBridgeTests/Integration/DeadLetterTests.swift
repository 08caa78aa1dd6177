import Foundation
import Testing
@testable import PushBridge

/// Every rejection reason produced end to end lands on the dead-letter topic (docs/formats.md, "Dead-letter message").
@Suite("Integration: dead letter")
struct DeadLetterTests {
    /// One way to get each reason: the input topic's last level, the payload and user properties.
    struct Case: Sendable {
        var reason: String
        var route: String
        var topic: String
        var payload: String
        var properties: [(name: String, value: String)] = []
    }

    static let body = #"{"aps":{"alert":"hi"}}"#
    static let cases: [Case] = [
        Case(reason: "BadCollapseId", route: "pass", topic: "apns/collapse", payload: body,
             properties: [("apns-collapse-id", String(repeating: "c", count: 65))]),
        Case(reason: "BadPriority", route: "pass", topic: "apns/priority", payload: body,
             properties: [("apns-push-type", "background"), ("apns-priority", "10")]),
        Case(reason: "InvalidPushType", route: "pass", topic: "apns/type", payload: body,
             properties: [("apns-push-type", "banner")]),
        Case(reason: "PayloadEmpty", route: "pass", topic: "apns/empty", payload: ""),
        Case(reason: "PayloadTooLarge", route: "json", topic: "json/large",
             payload: #"{"text":""# + String(repeating: "x", count: 5000) + #""}"#),
        Case(reason: "InvalidPayload", route: "pass", topic: "apns/text", payload: "hello, not an APNs body"),
        Case(reason: "BadMessageId", route: "pass", topic: "apns/id", payload: body,
             properties: [("apns-id", "not-a-uuid")]),
        Case(reason: "BadExpirationDate", route: "pass", topic: "apns/expiration", payload: body,
             properties: [("apns-expiration", "tomorrow")]),
        Case(reason: "TemplateError", route: "json", topic: "json/badge", payload: #"{"text":"t","badge":"many"}"#),
    ]

    @Test("each reason: JSON {reason, detail, source_topic, route, payload, received_at} and user property reason")
    func everyReason() async throws {
        let s = try await Scenario.start()
        let bridge = try InProcessBridge.start(yaml: s.yaml("""
            routes:
              - name: pass
                topic: \(s.ns)/in/apns/+
                input: apns
                push_type: alert
              - name: json
                topic: \(s.ns)/in/json/+
                alert: {title: T, body: "{{ payload.text }}", badge: "{{ payload.badge }}"}
            """))
        try await s.waitUntilOnline()
        for c in Self.cases {
            try s.publish(c.topic, c.payload, properties: c.properties)
        }
        for c in Self.cases {
            let m = try await s.waitFor(s.dead(c.topic))[0]
            let text = String(decoding: m.payload, as: UTF8.self)
            guard case .object(let o) = try JSONValue.parse(m.payload) else {
                Issue.record("\(c.reason): not an object: \(text)")
                continue
            }
            #expect(Set(o.keys) == ["reason", "detail", "source_topic", "route", "payload", "received_at"], "\(text)")
            #expect(o["reason"] == .string(c.reason), "\(text)")
            #expect(!jsonString(o["detail"]).isEmpty)
            #expect(o["source_topic"] == .string(s.input(c.topic)))
            #expect(o["route"] == .string(c.route))
            #expect(o["payload"] == .string(c.payload))
            #expect(jsonString(o["received_at"]).hasSuffix("Z"))
            #expect(m.property("reason") == c.reason)
        }
        let stats = try await s.waitForStats("all rejected") { total($0, "rejected") == Int64(Self.cases.count) }
        let expected = Dictionary(uniqueKeysWithValues: Self.cases.map { ($0.reason, JSONValue.int(1)) })
        #expect(stats["totals"]?["rejected_by_reason"] == .object(JSONObject(expected)))
        #expect(s.observer.messages.filter { $0.topic.hasPrefix("\(s.ns)/out/") }.isEmpty, "nothing displayed")
        try await bridge.stop()
    }
}
