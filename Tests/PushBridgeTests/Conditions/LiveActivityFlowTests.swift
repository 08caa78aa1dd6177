import Foundation
import Testing
@testable import PushBridge

/// A condition as a Live Activity on a running bridge and a real mosquitto, with a fake
/// clock: the raise starts it, a changed content state updates it, an unchanged one sends
/// nothing, the clear ends it with a dismissal date.
///
/// Payloads: Zigbee2MQTT's Aqara water leak sensor (docs/devices/SJCGQ11LM.md in
/// zigbee2mqtt.io) publishes `water_leak` beside `battery`, `voltage` and `linkquality`.
@Suite("Conditions: Live Activity on a real broker")
struct LiveActivityFlowTests {
    static func leak(_ wet: Bool, battery: Int) -> String {
        #"{"battery":\#(battery),"voltage":3055,"water_leak":\#(wet),"linkquality":120}"#
    }

    @Test("start, update on a changed content state, none when unchanged, end with a dismissal date")
    func life() async throws {
        let s = try await Scenario.start()
        let clock = FakeWallClock(1_800_000_000)
        let yaml = s.yaml("""
            conditions: {ack_topic: \(s.ns)/ack}
            routes:
              - name: leak
                topic: "\(s.ns)/in/#"
                alert: {title: "Water leak", body: "{{ topic }}"}
                condition:
                  key: "{{ topic }}"
                  active: 'payload.water_leak == true'
                  live_activity:
                    content_state: '{"battery": {{ payload.battery }}, "state": "{{ condition.state }}"}'
                    stale_after: 1h
                    dismiss_after: 4h
                    attributes_type: LeakAttributes
                    attributes: '{"sensor": "{{ levels[-1] }}"}'
            """, display: "format: apns")
        let bridge = try InProcessBridge.start(yaml: yaml, clock: clock.stageClock)
        try await s.waitUntilOnline()
        let out = s.display("basement")
        try s.publish("basement", Self.leak(true, battery: 100))
        var shown = try await s.waitFor(out)
        #expect(shown[0].userProperties.contains { $0.name == "apns-push-type" && $0.value == "liveactivity" })
        let start = try JSONValue.parse(shown[0].payload)["aps"]
        #expect(start?["event"] == .string("start") && start?["timestamp"] == .int(1_800_000_000))
        #expect(start?["stale-date"] == .int(1_800_003_600) && start?["dismissal-date"] == nil)
        #expect(start?["content-state"] == .object(["battery": .int(100), "state": .string("raised")]))
        // Push-to-start: the app's attributes type, the static attributes and the route's alert.
        #expect(start?["attributes-type"] == .string("LeakAttributes"))
        #expect(start?["attributes"] == .object(["sensor": .string("basement")]))
        #expect(start?["alert"]?["title"] == .string("Water leak"))
        clock.advance(60)
        try s.publish("basement", Self.leak(true, battery: 100))  // the same content state: no update
        try s.publish("basement", Self.leak(true, battery: 97))
        shown = try await s.waitFor(out, count: 2)
        let update = try JSONValue.parse(shown[1].payload)["aps"]
        #expect(update?["event"] == .string("update") && update?["timestamp"] == .int(1_800_000_060))
        #expect(update?["content-state"] == .object(["battery": .int(97), "state": .string("raised")]))
        #expect(update?["stale-date"] == .int(1_800_003_660))
        #expect(update?["attributes-type"] == nil && update?["attributes"] == nil)
        clock.advance(40)
        try s.publish("basement", Self.leak(false, battery: 97))
        shown = try await s.waitFor(out, count: 3)
        #expect(shown[2].userProperties.contains { $0.name == "apns-push-type" && $0.value == "liveactivity" })
        let end = try JSONValue.parse(shown[2].payload)["aps"]
        #expect(end?["event"] == .string("end") && end?["timestamp"] == .int(1_800_000_100))
        #expect(end?["dismissal-date"] == .int(1_800_000_100 + 4 * 3600))
        #expect(end?["content-state"] == .object(["battery": .int(97), "state": .string("cleared")]))
        try await Task.sleep(for: .milliseconds(300))
        #expect(s.messages(on: out).count == 3)
        #expect(bridge.bridge.flow.conditions.counts["leak"]?.cleared == 1)
        try await bridge.stop()
    }

    @Test("a content_state that does not render a JSON object is a rejection, dead lettered")
    func notAnObject() async throws {
        let s = try await Scenario.start()
        let bridge = try InProcessBridge.start(yaml: s.yaml("""
            routes:
              - name: leak
                topic: "\(s.ns)/in/#"
                alert: {title: "Water leak", body: "{{ topic }}"}
                condition:
                  key: "{{ topic }}"
                  active: 'payload.water_leak == true'
                  live_activity: {content_state: '{{ payload.battery }}'}
            """, display: "format: apns"))
        try await s.waitUntilOnline()
        try s.publish("basement", Self.leak(true, battery: 100))
        let dead = try await s.waitFor("\(s.ns)/dead/\(s.input("basement"))")
        #expect(String(decoding: dead[0].payload, as: UTF8.self).contains("content_state must render a JSON object"))
        #expect(s.messages(on: s.display("basement")).isEmpty)
        try await bridge.stop()
    }
}
