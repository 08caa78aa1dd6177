import Foundation
import Testing
@testable import PushBridge

/// Conditions across a restart, with the real `pushbridge` binary, a real mosquitto and real
/// time: SIGKILL between the raise and the first repeat, `pushbridge alerts` and
/// `pushbridge ack`, and retained state with and without stored memory.
///
/// Payloads: Zigbee2MQTT water leak sensors (docs/devices/SJCGQ11LM.md on zigbee2mqtt.io:
/// `water_leak` true/false beside `battery`, `voltage`, `linkquality`).
@Suite("Conditions: memory across restarts (real binary)", .serialized)
struct ConditionRestartTests {
    static let wet = #"{"battery":100,"voltage":3055,"water_leak":true,"linkquality":120}"#
    static let dry = #"{"battery":100,"voltage":3055,"water_leak":false,"linkquality":120}"#

    func config(_ s: Scenario, journal: String?, http: Int, every: String = "3s", cleanStart: Bool = false) -> String {
        s.yaml("""
            conditions: {ack_topic: \(s.ns)/ack}
            \(journal.map { "journal: {path: \($0), fsync: always}" } ?? "")
            routes:
              - name: leak
                topic: "\(s.ns)/in/#"
                retained: deliver
                alert: {title: "Water leak", body: "{{ topic }}"}
                condition:
                  key: "{{ topic }}"
                  active: 'payload.water_leak == true'
                  repeat: {every: \(every), count: 5}
            """, brokerExtra: cleanStart ? "clean_start: true" : "")
            .replacingOccurrences(of: "  log_level: debug", with: "  log_level: debug\n  http: 127.0.0.1:\(http)")
    }

    func states(_ s: Scenario, _ topic: String) throws -> [(state: String, id: String, repeat: JSONValue?)] {
        try s.json(on: topic).map { v in
            (jsonString(v["condition"]?["state"] ?? v["type"]), jsonString(v["condition"]?["alert_id"] ?? v["alert_id"]),
             v["condition"]?["repeat"])
        }
    }

    @Test("SIGKILL between raise and first repeat: one raise after the restart, repeats on schedule; alerts and ack")
    func killBetweenRaiseAndRepeat() async throws {
        let s = try await Scenario.start()
        let dir = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let http = try LoopbackPorts.free()
        let file = try writeTempFile(config(s, journal: dir + "/journal", http: http))
        let topic = s.display("basement")
        var bridge = try await PushbridgeBinary.start(configFile: file, broker: s.broker, subscriptions: 2)
        let published = Date()  // the raise comes after this, however loaded the machine
        try s.publish("basement", Self.wet)
        _ = try await s.waitFor(topic)
        bridge.send(SIGKILL)
        _ = await bridge.waitForExit(timeout: .seconds(10))
        // A loaded machine may take longer than one interval from the raise to the kill: the
        // repeats the first process sent are not the second one's to count.
        try await Task.sleep(for: .milliseconds(300))
        let repeatsBeforeKill = try states(s, topic).filter { $0.state == "repeated" }.count
        bridge = try await PushbridgeBinary.start(configFile: file, broker: s.broker, subscriptions: 2)
        let shown = try await s.waitFor(topic, count: 3, timeout: .seconds(20))
        let elapsed = Date().timeIntervalSince(published)
        let life = Array(try states(s, topic).prefix(3))  // a slow machine may have shown more by now
        #expect(life.map(\.state) == ["raised", "repeated", "repeated"], "\(shown.map { String(decoding: $0.payload, as: UTF8.self) })")
        #expect(Set(life.map(\.id)).count == 1)
        #expect(life.map(\.repeat) == [.int(0), .int(1), .int(2)])
        // The second repeat is due 6 s after the raise, which came after the publish (measured
        // from it, so a slow machine only adds): a lost schedule would repeat at once.
        #expect(elapsed >= 5.9, "the second repeat is due 6 s after the raise, came \(elapsed) s after the publish")

        let listed = try await ManagedProcess.run(PushbridgeBinary.path, ["alerts", "-c", file, "--json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let alerts = try JSONValue.parse(Array(listed.stdout.utf8))
        guard case .array(let items) = alerts, items.count == 1 else { Issue.record("alerts: \(listed.stdout)"); return }
        #expect(jsonString(items[0]["alert_id"]) == life[0].id && jsonString(items[0]["route"]) == "leak")
        let table = try await ManagedProcess.run(PushbridgeBinary.path, ["alerts", "-c", file])
        #expect(table.stdout.contains(life[0].id) && table.stdout.contains("ALERT_ID"), "\(table.stdout)")

        let acked = try await ManagedProcess.run(PushbridgeBinary.path, ["ack", "-c", file, life[0].id, "--by", "tester"])
        #expect(acked.status == 0 && acked.stdout.contains("acknowledged"), "\(acked.stderr)")
        var answered = ""
        for _ in 0..<50 where !answered.contains(#""acknowledged_by":"tester""#) {
            answered = try await ManagedProcess.run(PushbridgeBinary.path, ["alerts", "-c", file, "--json"]).stdout
            if !answered.contains("tester") { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(answered.contains(#""acknowledged_by":"tester""#), "\(answered)")
        let count = s.messages(on: topic).count
        try await Task.sleep(for: .seconds(4))  // more than one repeat interval: none comes
        #expect(s.messages(on: topic).count == count)
        let metrics = try httpGet(port: http, path: "/metrics").body
        #expect(metrics.contains(#"pushbridge_condition_transitions_total{route="leak",state="acknowledged"} 1"#), "\(metrics.suffix(600))")
        #expect(metrics.contains(#"pushbridge_condition_transitions_total{route="leak",state="raised"} 0"#))
        #expect(metrics.contains(#"pushbridge_conditions_active{route="leak"} 1"#))
        let stats = try JSONValue.parse(Array(try httpGet(port: http, path: "/api/stats").body.utf8))
        // Counters since this start: no raise (it was restored), the repeats it sent, one acknowledgement.
        let conditions = stats["routes"]?["leak"]?["conditions"]
        #expect(conditions?["active"] == .int(1) && conditions?["raised"] == .int(0) && conditions?["acknowledged"] == .int(1),
                "\(String(describing: conditions))")
        let repeatsAfterRestart = try states(s, topic).filter { $0.state == "repeated" }.count - repeatsBeforeKill
        #expect((conditions?["repeated"]?.exactInteger ?? 0) >= repeatsAfterRestart && repeatsAfterRestart >= 1,
                "\(String(describing: conditions)): \(repeatsBeforeKill) repeat(s) before the kill")
        _ = await bridge.terminate()
    }

    @Test("a retained active message is raised without stored memory and left alone with it; a retained inactive one clears")
    func retainedState() async throws {
        let s = try await Scenario.start()
        let dir = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let topic = s.display("basement")
        try s.observer.publish(s.input("basement"), Self.wet, retain: true)
        // No stored memory: the retained leak is true now and nobody was told.
        let file = try writeTempFile(config(s, journal: dir + "/journal", http: try LoopbackPorts.free(), every: "1h",
                                            cleanStart: true))
        var bridge = try await PushbridgeBinary.start(configFile: file, broker: s.broker, subscriptions: 2)
        _ = try await s.waitFor(topic)
        _ = await bridge.terminate()
        // Stored memory: the broker replays the same retained message; it is already raised.
        bridge = try await PushbridgeBinary.start(configFile: file, broker: s.broker, subscriptions: 2)
        try await bridge.errorLines.waitFor(line: "is already raised", timeout: .seconds(10))
        #expect(try states(s, topic).map(\.state) == ["raised"])
        // A retained inactive message clears it: the withdraw.
        try s.observer.publish(s.input("basement"), Self.dry, retain: true)
        _ = try await s.waitFor(topic, count: 2)
        #expect(try states(s, topic).map(\.state) == ["raised", "withdraw"])
        _ = await bridge.terminate()
        try s.observer.publish(s.input("basement"), "", retain: true)
    }
}
