import Foundation
import Testing
@testable import PushBridge

/// Messages through a real broker and an in-process bridge: protocols, input modes,
/// display formats and user properties both ways.
@Suite("Integration: message flow")
struct FlowTests {
    @Test("a message flows to the display topic", arguments: [MQTTProtocolVersion.v5, .v311])
    func flows(version: MQTTProtocolVersion) async throws {
        let s = try await Scenario.start(version: version)
        let bridge = try InProcessBridge.start(yaml: s.yaml("""
            routes:
              - name: door
                topic: \(s.ns)/in/#
                alert: {title: Door, body: "{{ payload.who }} is here"}
            """))
        try await s.waitUntilOnline()
        try s.publish("front", #"{"who":"Alice"}"#)
        let got = try await s.waitFor(s.display("front"))
        let json = try JSONValue.parse(got[0].payload)
        #expect(json["title"] == .string("Door"))
        #expect(json["body"] == .string("Alice is here"))
        #expect(json["source_topic"] == .string(s.input("front")))
        if version == .v311 {
            #expect(got[0].userProperties.isEmpty)
        } else {
            #expect(got[0].property(DisplayRenderer.hopProperty) == bridge.bridge.config.broker.clientID)
        }
        try await bridge.stop()
    }

    @Test("format json: every key of the display message, in the documented order")
    func displayJSONKeys() async throws {
        let s = try await Scenario.start()
        let bridge = try InProcessBridge.start(yaml: s.yaml("""
            routes:
              - name: door
                topic: \(s.ns)/in/+/+
                collapse_id: "door-{{ levels[3] }}"
                expiration: 10m
                alert:
                  title: Doorbell
                  subtitle: "{{ levels[3] }}"
                  body: "{{ payload.who }} is at the door"
                  sound: default
                  badge: "{{ payload.n }}"
                  thread_id: doorbell
                  category: DOORBELL
                  interruption_level: time-sensitive
                  relevance_score: 0.5
                  target_content_id: tc-1
                  filter_criteria: home
              - name: plain
                topic: \(s.ns)/in/plain
                input: text
                user_info: "{{ null }}"
            """))
        try await s.waitUntilOnline()
        let before = Date().timeIntervalSince1970
        try s.publish("door/front", #"{"who":"Alice","n":3}"#)
        try s.publish("plain", "just text")
        let full = try await s.waitFor(s.display("door/front"))[0]
        let text = String(decoding: full.payload, as: UTF8.self)
        let keys = ["id", "source_topic", "route", "push_type", "priority", "collapse_id", "title", "subtitle", "body",
                    "sound", "badge", "thread_id", "category", "interruption_level", "relevance_score",
                    "target_content_id", "filter_criteria", "expiration", "user_info", "modified", "received_at"]
        guard case .object(let o) = try JSONValue.parse(full.payload) else { Issue.record("not an object: \(text)"); return }
        #expect(Set(o.keys) == Set(keys))
        let positions = keys.compactMap { text.range(of: "\"\($0)\":")?.lowerBound }
        #expect(positions.count == keys.count && positions == positions.sorted(), "key order in \(text)")
        #expect(NotificationRequest.isValidID(jsonString(o["id"])))
        #expect(o["route"] == .string("door"))
        #expect(o["push_type"] == .string("alert"))
        #expect(o["priority"] == .int(10))
        #expect(o["collapse_id"] == .string("door-front"))
        #expect(o["title"] == .string("Doorbell"))
        #expect(o["subtitle"] == .string("front"))
        #expect(o["body"] == .string("Alice is at the door"))
        #expect(o["sound"] == .string("default"))
        #expect(o["badge"] == .int(3))
        #expect(o["thread_id"] == .string("doorbell"))
        #expect(o["category"] == .string("DOORBELL"))
        #expect(o["interruption_level"] == .string("time-sensitive"))
        #expect(o["relevance_score"] == .double(0.5))
        #expect(o["target_content_id"] == .string("tc-1"))
        #expect(o["filter_criteria"] == .string("home"))
        #expect(o["user_info"] == .object(["who": .string("Alice"), "n": .int(3)]))
        #expect(o["modified"] == .bool(false))
        if case .int(let e)? = o["expiration"] {
            #expect(e >= Int64(before) + 599 && e <= Int64(Date().timeIntervalSince1970) + 600)
        } else {
            Issue.record("expiration missing in \(text)")
        }
        #expect(jsonString(o["received_at"]).hasSuffix("Z"))

        let plain = try await s.waitFor(s.display("plain"))[0]
        guard case .object(let p) = try JSONValue.parse(plain.payload) else { Issue.record("not an object"); return }
        #expect(Set(p.keys) == ["id", "source_topic", "route", "push_type", "priority", "title", "body", "modified",
                                "received_at"])
        #expect(p["title"] == .string(""))
        #expect(p["body"] == .string("just text"))
        #expect(p["route"] == .string("plain"))
        try await bridge.stop()
    }

    @Test("format apns: the APNs body with the headers and source-topic as user properties")
    func displayAPNs() async throws {
        let s = try await Scenario.start()
        let bridge = try InProcessBridge.start(yaml: s.yaml("""
            routes:
              - name: door
                topic: \(s.ns)/in/#
                priority: 5
                collapse_id: "c-{{ payload.room }}"
                expiration: "{{ 4102444800 }}"
                alert: {title: Door, body: "{{ payload.room }}", sound: chime}
            """, display: "format: apns"))
        try await s.waitUntilOnline()
        try s.publish("a", #"{"room":"hall"}"#)
        let m = try await s.waitFor(s.display("a"))[0]
        let body = try JSONValue.parse(m.payload)
        #expect(body["aps"]?["alert"] == .object(["title": .string("Door"), "body": .string("hall")]))
        #expect(body["aps"]?["sound"] == .string("chime"))
        #expect(body["aps"]?["mutable-content"] == .int(1))
        #expect(body["room"] == .string("hall"), "user_info beside aps")
        #expect(NotificationRequest.isValidID(m.property("apns-id") ?? ""))
        #expect(m.property("apns-push-type") == "alert")
        #expect(m.property("apns-priority") == "5")
        #expect(m.property("apns-collapse-id") == "c-hall")
        #expect(m.property("apns-expiration") == "4102444800")
        #expect(m.property("source-topic") == s.input("a"))
        try await bridge.stop()
    }

    @Test("format text: the alert body alone")
    func displayText() async throws {
        let s = try await Scenario.start()
        let bridge = try InProcessBridge.start(yaml: s.yaml("""
            routes:
              - topic: \(s.ns)/in/#
                input: text
                alert: {title: Ignored, body: "said: {{ raw }}"}
            """, display: "format: text"))
        try await s.waitUntilOnline()
        try s.publish("t", "hi there")
        #expect(try await s.waitFor(s.display("t")).map { String(decoding: $0.payload, as: UTF8.self) } == ["said: hi there"])
        try await bridge.stop()
    }

    @Test("input json: a non-JSON payload is text; input text: the payload is raw text")
    func inputModes() async throws {
        let s = try await Scenario.start()
        let bridge = try InProcessBridge.start(yaml: s.yaml("""
            routes:
              - name: j
                topic: \(s.ns)/in/json
                input: json
                alert: {title: "{{ payload.a | default('none') }}", body: "{{ raw }}"}
              - name: t
                topic: \(s.ns)/in/text
                input: text
                alert: {title: "{{ payload.a | default('none') }}", body: "{{ payload }}"}
            """))
        try await s.waitUntilOnline()
        try s.publish("json", #"{"a":"x"}"#)
        try s.publish("json", "not json")
        try s.publish("text", #"{"a":"x"}"#)
        let j = try await s.waitFor(s.display("json"), count: 2).map { try JSONValue.parse($0.payload) }
        #expect(j.map { $0["title"] } == [.string("x"), .string("none")])
        #expect(j.map { $0["body"] } == [.string(#"{"a":"x"}"#), .string("not json")])
        let t = try await s.waitFor(s.display("text")).map { try JSONValue.parse($0.payload) }
        #expect(t[0]["title"] == .string("none"))
        #expect(t[0]["body"] == .string(#"{"a":"x"}"#))
        #expect(t[0]["route"] == .string("t"))
        try await bridge.stop()
    }

    @Test("input apns: headers from user properties; background is not displayed; legacy type is none")
    func inputAPNs() async throws {
        let s = try await Scenario.start()
        let bridge = try InProcessBridge.start(yaml: s.yaml("""
            routes:
              - name: pass
                topic: \(s.ns)/in/#
                input: apns
            """))
        try await s.waitUntilOnline()
        let body = #"{"aps":{"alert":{"title":"T","body":"B"}},"k":"v"}"#
        let id = "6F1C2B9E-4D3A-4C2B-9A51-2F0E8D7C6B5A"
        try s.publish("x", body, properties: [("apns-push-type", "background"), ("apns-priority", "5")])
        try s.publish("x", body, properties: [("apns-push-type", "alert"), ("apns-priority", "5"),
                                              ("apns-collapse-id", "grp"), ("apns-id", id),
                                              ("apns-expiration", "4102444800")])
        try s.publish("x", body)
        let stats = try await s.waitForStats("3 decided") { total($0, "received") == 3 && $0["in_flight"] == .int(0) }
        #expect(total(stats, "not_displayed") == 1)
        let shown = try await s.waitFor(s.display("x"), count: 2).map { try JSONValue.parse($0.payload) }
        #expect(shown.count == 2, "the background push is not displayed")
        #expect(shown[0]["id"] == .string(id.lowercased()))
        #expect(shown[0]["priority"] == .int(5))
        #expect(shown[0]["collapse_id"] == .string("grp"))
        #expect(shown[0]["expiration"] == .int(4_102_444_800))
        #expect(shown[0]["push_type"] == .string("alert"))
        #expect(shown[0]["user_info"] == .object(["k": .string("v")]))
        #expect(shown[1]["push_type"] == .string("none"), "no apns-push-type: the legacy case")
        #expect(shown[1]["priority"] == .int(10))
        #expect(shown[1]["id"] != shown[0]["id"])
        try await bridge.stop()
    }
}
