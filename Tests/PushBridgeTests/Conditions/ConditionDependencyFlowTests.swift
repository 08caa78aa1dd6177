import Foundation
import Testing
@testable import PushBridge

/// `depends_on` on a real mosquitto: Zigbee2MQTT's bridge offline with 10 devices following
/// is one notification; the bridge back is one announcement of the devices still offline,
/// which then repeat as usual. Once in process with a fake clock, once with the real binary,
/// real time and a SIGKILL while the devices are superseded.
///
/// Payloads: Zigbee2MQTT publishes `{"state":"offline"}` / `{"state":"online"}` on
/// `<base>/bridge/state` (Koenkk/zigbee2mqtt lib/mqtt.ts, also its MQTT last will) and on
/// `<base>/<device>/availability` (test/extensions/availability.test.ts).
@Suite("Conditions: dependencies on a real broker")
struct ConditionDependencyFlowTests {
    static let offline = #"{"state":"offline"}"#
    static let online = #"{"state":"online"}"#

    static func routes(_ s: Scenario, every: String) -> String {
        """
        conditions: {ack_topic: \(s.ns)/ack}
        routes:
          - name: bridge-offline
            topic: "\(s.ns)/in/bridge/state"
            alert: {title: "Zigbee2MQTT is offline"}
            condition: {key: "{{ topic }}", active: 'payload.state == "offline"'}
          - name: device-offline
            topic: "\(s.ns)/in/+/availability"
            alert: {title: "Offline: {{ levels[-2] }}"}
            condition:
              key: "{{ topic }}"
              active: 'payload.state == "offline"'
              repeat: {every: \(every)}
              depends_on: bridge-offline
        """
    }

    /// The display topics of the devices' availability inputs.
    static func devices(_ s: Scenario, _ n: Int) -> [(name: String, display: String)] {
        (1...n).map { i in
            let name = String(format: "device%02d", i)
            return (name, s.display("\(name)/availability"))
        }
    }

    @Test("bridge offline, 10 devices follow: 1 notification; back: 1 announcement of the 7 still offline; then their repeats")
    func oneRootCauseOneNotification() async throws {
        let s = try await Scenario.start()
        let clock = FakeWallClock(1_800_000_000)
        let bridge = try InProcessBridge.start(yaml: s.yaml(Self.routes(s, every: "10m")), clock: clock.stageClock)
        try await s.waitUntilOnline()
        let bridgeTopic = s.display("bridge/state")
        try s.publish("bridge/state", Self.offline)
        let told = try await s.waitFor(bridgeTopic)
        #expect(jsonString(try JSONValue.parse(told[0].payload)["title"]) == "Zigbee2MQTT is offline")
        let devices = Self.devices(s, 10)
        for d in devices { try s.publish("\(d.name)/availability", Self.offline) }
        try await eventually("10 superseded") {
            bridge.bridge.flow.conditions.active.filter { $0.state == .superseded }.count == 10
        }
        // Three answer again while the bridge is still offline: silently.
        for d in devices.prefix(3) { try s.publish("\(d.name)/availability", Self.online) }
        try await eventually("3 cleared") { bridge.bridge.flow.conditions.counts["device-offline"]?.cleared == 3 }
        // While superseded, no repeat either.
        clock.advance(3600); bridge.fireConditions()
        let stats = try await s.waitForStats("superseded counted") { $0["routes"]?["device-offline"]?["conditions"]?["superseded"] == .int(10) }
        #expect(stats["routes"]?["device-offline"]?["conditions"]?["active"] == .int(7))
        #expect(stats["routes"]?["device-offline"]?["conditions"]?["raised"] == .int(0))
        #expect(devices.allSatisfy { s.messages(on: $0.display).isEmpty })

        // The bridge is back: its withdraw, then one announcement on the oldest device's display topic.
        try s.publish("bridge/state", Self.online)
        _ = try await s.waitFor(bridgeTopic, count: 2)
        bridge.fireConditions()
        let stillOffline = Array(devices.dropFirst(3))
        let announced = try await s.waitFor(stillOffline[0].display)
        let message = try JSONValue.parse(announced[0].payload)
        #expect(jsonString(message["title"]) == "device-offline: 7 still active after bridge-offline cleared")
        #expect(jsonString(message["body"]) == stillOffline.map { "Offline: \($0.name)" }.joined(separator: ", "))
        #expect(jsonString(message["collapse_id"]) == "device-offline-announcement")
        #expect(jsonString(message["route"]) == "device-offline")
        #expect(bridge.bridge.flow.conditions.active.allSatisfy { $0.state == .raised })
        // Ordinary conditions from now on: each repeats 10 minutes after the announcement.
        clock.advance(600); bridge.fireConditions()
        for d in stillOffline {
            let shown = try await s.waitFor(d.display, count: d.name == stillOffline[0].name ? 2 : 1)
            let last = try JSONValue.parse(shown.last!.payload)
            #expect(jsonString(last["title"]) == "Offline: \(d.name)" && jsonString(last["condition"]?["state"]) == "repeated")
        }
        #expect(devices.prefix(3).allSatisfy { s.messages(on: $0.display).isEmpty })
        #expect(s.messages(on: bridgeTopic).count == 2)  // the offline and its withdraw: nothing per device
        try await bridge.stop()
    }

    @Test("SIGKILL while devices are superseded: they stay superseded; the bridge back announces them (real time)")
    func supersededSurvivesASIGKILL() async throws {
        let s = try await Scenario.start()
        let dir = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let http = try LoopbackPorts.free()
        let yaml = s.yaml(Self.routes(s, every: "2s") + "\njournal: {path: \(dir)/journal, fsync: always}\n")
            .replacingOccurrences(of: "  log_level: debug", with: "  log_level: debug\n  http: 127.0.0.1:\(http)")
        let file = try writeTempFile(yaml)
        var process = try await PushbridgeBinary.start(configFile: file, broker: s.broker, subscriptions: 2)
        let bridgeTopic = s.display("bridge/state")
        try s.publish("bridge/state", Self.offline)
        _ = try await s.waitFor(bridgeTopic)
        let devices = Self.devices(s, 3)
        for d in devices { try s.publish("\(d.name)/availability", Self.offline) }
        var listed: [JSONValue] = []
        for _ in 0..<100 {
            let out = try await ManagedProcess.run(PushbridgeBinary.path, ["alerts", "-c", file, "--json"]).stdout
            if case .array(let items)? = try? JSONValue.parse(Array(out.utf8)), items.count == 4 { listed = items; break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(listed.filter { jsonString($0["state"]) == "superseded" }.count == 3, "\(listed)")
        process.send(SIGKILL)
        _ = await process.waitForExit(timeout: .seconds(10))
        process = try await PushbridgeBinary.start(configFile: file, broker: s.broker, subscriptions: 2)
        let alerts = try JSONValue.parse(Array(try httpGet(port: http, path: "/api/alerts").body.utf8))
        guard case .array(let items) = alerts else { Issue.record("alerts: \(alerts)"); return }
        #expect(items.filter { jsonString($0["state"]) == "superseded" }.count == 3, "\(items)")
        try await Task.sleep(for: .seconds(3))  // longer than a repeat: none while superseded
        #expect(devices.allSatisfy { s.messages(on: $0.display).isEmpty })
        try s.publish("bridge/state", Self.online)
        let announced = try await s.waitFor(devices[0].display)
        #expect(jsonString(try JSONValue.parse(announced[0].payload)["title"]) == "device-offline: 3 still active after bridge-offline cleared")
        // Then they repeat on their own (2 s after the announcement).
        _ = try await s.waitFor(devices[2].display, timeout: .seconds(10))
        let metrics = try httpGet(port: http, path: "/metrics").body
        #expect(metrics.contains(#"pushbridge_condition_transitions_total{route="device-offline",state="superseded"} 0"#),
                "counters restart at zero: \(metrics.suffix(400))")
        _ = await process.terminate()
    }
}
