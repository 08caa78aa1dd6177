import Foundation
import Testing
@testable import PushBridge

/// The whole life of a condition on a running bridge and a real mosquitto, with a fake
/// clock for the timer: raise, 2 repeats, an escalation step, ack by id, snooze, clear
/// (withdraw), raise again; quiet hours holding a repeat.
///
/// Payloads: Zigbee2MQTT's water leak sensors (e.g. Aqara SJCGQ11LM, docs/devices/SJCGQ11LM.md
/// in zigbee2mqtt.io) publish `water_leak` (true/false) beside `battery`, `voltage` and
/// `linkquality`; a report without `water_leak` (a battery report) is unevaluable.
@Suite("Conditions: life on a real broker")
struct ConditionFlowTests {
    static let wet = #"{"battery":100,"voltage":3055,"water_leak":true,"linkquality":120}"#
    static let dry = #"{"battery":100,"voltage":3055,"water_leak":false,"linkquality":120}"#
    static let battery = #"{"battery":97,"voltage":3010,"linkquality":117}"#

    func yaml(_ s: Scenario, extra: String = "") -> String {
        s.yaml("""
            entitlements: [com.apple.developer.usernotifications.filtering]
            conditions: {ack_topic: \(s.ns)/ack}
            routes:
              - name: leak
                topic: "\(s.ns)/in/#"
                alert: {title: "Water leak", body: "{{ topic }}", interruption_level: time-sensitive}
                condition:
                  key: "{{ topic }}"
                  active: 'payload.water_leak == true'
                  repeat: {every: 10m}
                  escalate:
                    - after: 25m
                      set: {interruption_level: critical, title: "Still: {{ content.title }}"}
            \(extra)
            """)
    }

    func condition(_ m: InboundMessage) throws -> JSONValue { try JSONValue.parse(m.payload)["condition"] ?? .null }

    @Test("raise, repeats, a step, ack by id, snooze and resume, clear with withdraw, raise again")
    func wholeLife() async throws {
        let s = try await Scenario.start()
        let clock = FakeWallClock(1_800_000_000)
        let bridge = try InProcessBridge.start(yaml: yaml(s), clock: clock.stageClock)
        try await s.waitUntilOnline()
        let basement = s.display("basement")
        try s.publish("basement", Self.wet)
        var shown = try await s.waitFor(basement)
        let raised = try condition(shown[0])
        let alertID = jsonString(raised["alert_id"])
        #expect(jsonString(raised["state"]) == "raised" && raised["repeat"] == .int(0) && raised["step"] == .int(0))
        #expect(jsonString(try JSONValue.parse(shown[0].payload)["collapse_id"]) == "leak-\(s.ns)-in-basement")
        try s.publish("basement", Self.wet)      // still wet: state, not an event
        try s.publish("basement", Self.battery)  // no water_leak: changes nothing
        clock.advance(600); bridge.fireConditions()
        clock.advance(600); bridge.fireConditions()
        shown = try await s.waitFor(basement, count: 3)
        #expect(try shown.map { jsonString(try condition($0)["state"]) } == ["raised", "repeated", "repeated"])
        #expect(try shown.map { try condition($0)["repeat"] } == [.int(0), .int(1), .int(2)])
        #expect(try shown.allSatisfy { jsonString(try condition($0)["alert_id"]) == alertID })
        clock.advance(300); bridge.fireConditions()   // 25 min: the step
        shown = try await s.waitFor(basement, count: 4)
        let step = try JSONValue.parse(shown[3].payload)
        #expect(jsonString(step["title"]) == "Still: Water leak" && jsonString(step["interruption_level"]) == "critical")
        #expect(jsonString(step["condition"]?["state"]) == "escalated" && step["condition"]?["step"] == .int(1))
        try s.observer.publish("\(s.ns)/ack", #"{"alert_id":"\#(alertID)","by":"alice"}"#)
        try await eventually("acknowledged") { bridge.bridge.flow.conditions.active.first?.acknowledged == true }
        #expect(bridge.bridge.flow.conditions.nextDue == nil)
        clock.advance(3600); bridge.fireConditions()  // acknowledged: no repeat
        // Snooze: a second condition pauses for 30 min and resumes.
        let kitchen = s.display("kitchen")
        try s.publish("kitchen", Self.wet)
        let k = try await s.waitFor(kitchen)
        let kitchenID = jsonString(try condition(k[0])["alert_id"])
        try s.observer.publish("\(s.ns)/ack", #"{"alert_id":"\#(kitchenID)","snooze":"30m"}"#)
        try await eventually("snoozed") { bridge.bridge.flow.conditions.active.contains { $0.snoozedUntil != nil } }
        clock.advance(600); bridge.fireConditions()   // snoozed: nothing
        clock.advance(1200); bridge.fireConditions()  // 30 min: resumed
        let resumed = try await s.waitFor(kitchen, count: 2)
        // The step that fell due during the snooze comes first when it ends.
        #expect(jsonString(try condition(resumed[1])["state"]) == "escalated")
        #expect(s.messages(on: basement).count == 4)  // published before the kitchen's resumption, on the same connection
        // Clear: the withdraw message, then a new alert on the next leak.
        try s.publish("basement", Self.dry)
        shown = try await s.waitFor(basement, count: 5)
        let withdraw = try JSONValue.parse(shown[4].payload)
        #expect(withdraw == .object(["type": .string("withdraw"), "alert_id": .string(alertID),
                                      "collapse_id": .string("leak-\(s.ns)-in-basement"),
                                      "source_topic": .string(s.input("basement")), "route": .string("leak"),
                                      "reason": .string("cleared")]))
        try s.publish("basement", Self.wet)
        shown = try await s.waitFor(basement, count: 6)
        let again = try condition(shown[5])
        #expect(jsonString(again["state"]) == "raised" && jsonString(again["alert_id"]) != alertID)
        let counts = try #require(bridge.bridge.flow.conditions.counts["leak"])
        #expect(counts.raised == 3 && counts.repeated == 2 && counts.escalated == 2 && counts.acknowledged == 1
                && counts.cleared == 1 && counts.active == 2)
        try await bridge.stop()
    }

    @Test("quiet hours hold a repeat back; the first one after them is delivered and counted")
    func quietHoursHoldARepeat() async throws {
        let s = try await Scenario.start()
        // 2027-01-14T21:58:00Z: the raise is delivered, then the night begins
        let clock = FakeWallClock(1_799_963_880)
        let bridge = try InProcessBridge.start(yaml: yaml(s, extra: """
            extension:
              filters:
                - name: night
                  quiet_hours: {from: "22:00", to: "07:00", timezone: UTC}
            """), clock: clock.stageClock)
        try await s.waitUntilOnline()
        try s.publish("basement", Self.wet)
        _ = try await s.waitFor(s.display("basement"))
        // Acknowledge nothing; let the night pass in 10-minute steps (the step at 25 min is held too).
        for _ in 0..<54 { clock.advance(600); bridge.fireConditions() }  // 22:08 … 06:58, all held
        #expect(s.messages(on: s.display("basement")).count == 1)
        clock.advance(600); bridge.fireConditions()  // 07:08
        let shown = try await s.waitFor(s.display("basement"), count: 2)
        let c = try condition(shown[1])
        #expect(jsonString(c["state"]) == "repeated" && c["repeat"] == .int(1))
        #expect(bridge.bridge.flow.conditions.counts["leak"]?.repeated == 1)
        try await bridge.stop()
    }
}
