import Foundation
import Testing
@testable import PushBridge

/// A route's `lookup:` on a real mosquitto: a retained discovery config stored before the
/// bridge starts is replayed on its subscription and kept; a state message then reads it.
@Suite("Integration: lookups")
struct LookupFlowTests {
    @Test("a retained discovery config published before the start gives the state message its device class; an empty one deletes it")
    func discoveryConfigBeforeStart() async throws {
        let s = try await Scenario.start()
        // What an ESPHome node leaves on the broker with discovery on: its sensor's config, retained.
        let config = "\(s.ns)/ha/binary_sensor/kitchen/boiler_room/config"
        try s.observer.publish(config, #"{"dev_cla":"gas","name":"Boiler Room","stat_t":"kitchen/binary_sensor/boiler_room/state"}"#,
                               retain: true)
        try await s.observer.waitUntilAcknowledged("the broker stored the config")
        let yaml = s.yaml("""
        entitlements: [com.apple.developer.usernotifications.filtering]
        routes:
          - name: alarm
            topic: \(s.ns)/in/+/binary_sensor/+/state
            input: text
            lookup:
              discovery: "\(s.ns)/ha/binary_sensor/{{ levels[-4] }}/{{ levels[-2] }}/config"
            alert:
              title: "{{ levels[-4] }}: {{ lookup.discovery.name | default(levels[-2]) }}"
              body: "device class {{ lookup.discovery.dev_cla | default('none') }}, {{ payload }}"
        """, brokerExtra: "clean_start: true\nsession_expiry: 0")
        let bridge = try InProcessBridge.start(yaml: yaml)
        try await s.waitUntilOnline()
        let state = "kitchen/binary_sensor/boiler_room/state"
        try s.publish(state, "ON")
        var shown = try await s.waitFor(s.display(state))
        var display = try JSONValue.parse(shown[0].payload)
        #expect(display["title"] == .string("kitchen: Boiler Room"))
        #expect(display["body"] == .string("device class gas, ON"))

        // The node deletes its config (an empty retained payload): the value is gone.
        try s.observer.publish(config, "", retain: true)
        try s.publish(state, "OFF")
        shown = try await s.waitFor(s.display(state), count: 2)
        display = try JSONValue.parse(shown[1].payload)
        #expect(display["title"] == .string("kitchen: boiler_room"))
        #expect(display["body"] == .string("device class none, OFF"))

        // The config topics are kept, never decided: only the two states were received.
        let stats = try await s.waitForStats("2 decided") { total($0, "received") == 2 && $0["in_flight"] == .int(0) }
        #expect(total(stats, "delivered") == 2 && total(stats, "unrouted") == 0)
        try await bridge.stop()
    }
}
