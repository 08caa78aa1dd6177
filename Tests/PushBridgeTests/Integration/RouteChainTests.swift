import Foundation
import Testing
@testable import PushBridge

/// Routes on a real mosquitto whose filters overlap: a covered filter is not subscribed (one
/// copy of each message, decided once), and `continue: true` hands a message on to the next
/// matching route, which decides it too.
///
/// Payloads: Zigbee2MQTT's availability message (`{"state":"offline"}` on
/// `<friendly_name>/availability`, zigbee2mqtt.io guide "Device availability") and a water
/// leak sensor's state (Aqara SJCGQ11LM, zigbee2mqtt.io docs/devices/SJCGQ11LM.md).
@Suite("Routes: overlapping filters and continue")
struct RouteChainTests {
    static let wet = #"{"battery":100,"voltage":3055,"water_leak":true,"linkquality":120}"#
    static let battery = #"{"battery":15,"voltage":2700,"linkquality":117}"#

    func route(_ stats: JSONValue, _ name: String, _ counter: String) -> Int64 {
        if case .int(let n)? = stats["routes"]?[name]?[counter] { return n }
        return 0
    }

    @Test("a route whose filter another covers: each message arrives once and is decided once")
    func coveredFilterIsNotSubscribedTwice() async throws {
        let s = try await Scenario.start()
        let bridge = try InProcessBridge.start(yaml: s.yaml("""
            routes:
              - name: offline
                topic: "\(s.ns)/in/+/availability"
                alert: {title: "Offline", body: "{{ levels[-2] }}"}
              - name: all
                topic: "\(s.ns)/in/#"
                alert: {title: "Report", body: "{{ raw }}"}
            """))
        try await bridge.waitUntilSubscribed(on: s.broker, count: 1)
        #expect(RouteSubscriptions.subscriptions(for: bridge.bridge.config).map(\.filter) == ["\(s.ns)/in/#"])
        try await s.waitUntilOnline()
        try s.publish("hall/availability", #"{"state":"offline"}"#)
        try s.publish("hall", Self.battery)
        _ = try await s.waitFor(s.display("hall"))
        let stats = try await s.waitForStats("both decided") { total($0, "delivered") == 2 }
        #expect(total(stats, "received") == 2)
        #expect(route(stats, "offline", "delivered") == 1 && route(stats, "all", "delivered") == 1)
        let offline = try s.json(on: s.display("hall/availability"))
        #expect(offline.count == 1 && jsonString(offline.first?["title"]) == "Offline")
        try await bridge.stop()
    }

    @Test("routes that partly overlap (MQTT 5): the broker brings two copies, one is decided", arguments: [false, true])
    func partlyOverlappingRoutesDecideOnce(reload: Bool) async throws {
        let s = try await Scenario.start()
        let routes = """
            routes:
              - name: kitchen
                topic: "\(s.ns)/in/kitchen/+"
                alert: {title: "Kitchen", body: "{{ raw }}"}
              - name: doors
                topic: "\(s.ns)/in/+/door"
                alert: {title: "Door", body: "{{ raw }}"}
            """
        let yaml = s.yaml(routes)
        let bridge = try InProcessBridge.start(yaml: reload ? s.yaml("routes: [{name: other, topic: \"\(s.ns)/other\"}]") : yaml)
        try await s.waitUntilOnline()
        if reload {
            // The identifiers also come with a reload's new subscriptions.
            _ = await bridge.bridge.apply(try loadConfig(yaml))
        }
        try await bridge.waitUntilSubscribed(on: s.broker, count: reload ? 3 : 2)
        try s.publish("kitchen/door", "open")
        try s.publish("hall/door", "open")
        try s.publish("kitchen/tap", "on")
        let stats = try await s.waitForStats("three decided") { total($0, "delivered") == 3 }
        #expect(total(stats, "received") == 3)
        let kitchenDoor = try s.json(on: s.display("kitchen/door"))
        #expect(kitchenDoor.count == 1 && jsonString(kitchenDoor.first?["title"]) == "Kitchen")
        #expect(route(stats, "kitchen", "delivered") == 2 && route(stats, "doors", "delivered") == 1)
        try await bridge.stop()
    }

    @Test("continue: a condition route and an event route decide the same message, each once")
    func continueHandsTheMessageOn() async throws {
        let s = try await Scenario.start()
        let bridge = try InProcessBridge.start(yaml: s.yaml("""
            conditions: {ack_topic: \(s.ns)/ack}
            routes:
              - name: leak
                topic: "\(s.ns)/in/#"
                continue: true
                alert: {title: "Water leak", body: "{{ topic }}"}
                condition:
                  key: "{{ topic }}"
                  active: 'payload.water_leak == true'
              - name: battery
                topic: "\(s.ns)/in/#"
                alert: {title: "Battery {{ payload.battery }} %"}
            """))
        try await s.waitUntilOnline()
        let basement = s.display("basement")
        try s.publish("basement", Self.wet)
        var shown = try await s.jsonMessages(on: basement, count: 2)
        #expect(jsonString(shown[0]["condition"]?["state"]) == "raised" && jsonString(shown[0]["title"]) == "Water leak")
        #expect(shown[1]["condition"] == nil && jsonString(shown[1]["title"]) == "Battery 100 %")
        #expect(jsonString(shown[0]["id"]) != jsonString(shown[1]["id"]))
        // No water_leak: the condition cannot be evaluated, so the leak route hands the message
        // on without a decision of its own; the battery route delivers.
        try s.publish("basement", Self.battery)
        shown = try await s.jsonMessages(on: basement, count: 3)
        #expect(jsonString(shown[2]["title"]) == "Battery 15 %")
        let stats = try await s.waitForStats("two messages") { total($0, "received") == 2 && total($0, "delivered") == 2 }
        // The message's one outcome is the last route's; each route counts its own decision.
        #expect(total(stats, "not_displayed") == 0)
        #expect(route(stats, "leak", "received") == 1 && route(stats, "leak", "delivered") == 1
                && route(stats, "leak", "not_displayed") == 0)
        #expect(route(stats, "battery", "received") == 2 && route(stats, "battery", "delivered") == 2)
        #expect(bridge.bridge.flow.conditions.active.count == 1)
        try await bridge.stop()
    }
}

extension Scenario {
    /// Waits for `count` messages on `topic` and returns them parsed.
    fileprivate func jsonMessages(on topic: String, count: Int) async throws -> [JSONValue] {
        try await waitFor(topic, count: count).map { try JSONValue.parse($0.payload) }
    }
}
