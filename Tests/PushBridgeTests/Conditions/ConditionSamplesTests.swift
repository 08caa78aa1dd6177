import Foundation
import Testing
@testable import PushBridge

/// `pushbridge try --samples`: `#@ at` moves the clock, and the repeats and steps due
/// before each sample are shown at their times (so recipes demonstrate a condition's life).
@Suite("Conditions: try --samples")
struct ConditionSamplesTests {
    static let config = """
        conditions: {ack_topic: pushbridge/ack}
        routes:
          - name: leak
            topic: zigbee2mqtt/+
            alert: {title: "Water leak", body: "{{ topic }}", interruption_level: time-sensitive}
            condition:
              key: "{{ topic }}"
              active: 'payload.water_leak == true'
              repeat: {every: 10m, count: 3}
              escalate:
                - after: 25m
                  set: {interruption_level: critical, title: "Still: {{ content.title }}"}
        """
    // Zigbee2MQTT water leak sensor reports (docs/devices/SJCGQ11LM.md): `water_leak`,
    // and a battery report without it.
    static let samples = """
        #@ at 2026-12-01T10:00
        zigbee2mqtt/basement\t{"battery":100,"water_leak":true,"linkquality":120}
        #@ at 2026-12-01T10:30
        zigbee2mqtt/basement\t{"battery":97,"linkquality":117}
        #@ at 2026-12-01T10:45
        zigbee2mqtt/basement\t{"battery":97,"water_leak":false,"linkquality":117}
        """

    @Test func repeatsAndStepsShowWhenTheClockMoves() async throws {
        let dir = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.config.write(toFile: dir + "/bridge.yml", atomically: true, encoding: .utf8)
        try Self.samples.write(toFile: dir + "/samples.tsv", atomically: true, encoding: .utf8)
        let r = try await ManagedProcess.run(PushbridgeBinary.path, ["try", "-c", dir + "/bridge.yml", "--samples", dir + "/samples.tsv", "--json"],
                                             environment: ["TZ": "UTC"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = try r.stdout.split(separator: "\n").map { try JSONValue.parse(Array($0.utf8)) }
        let states = lines.map { jsonString($0["display"]?["payload"]?["condition"]?["state"]) }
        #expect(states == ["raised", "repeated", "repeated", "escalated", "", "repeated", ""], "\(r.stdout)")
        #expect(lines.map { jsonString($0["at"]) } == ["", "2026-12-01T10:10:00.000Z", "2026-12-01T10:20:00.000Z",
                                                      "2026-12-01T10:25:00.000Z", "", "2026-12-01T10:35:00.000Z", ""])
        #expect(jsonString(lines[5]["display"]?["payload"]?["title"]) == "Still: Water leak")
        #expect(jsonString(lines[6]["rule"]).contains("withdraw published"))
        let table = try await ManagedProcess.run(PushbridgeBinary.path, ["try", "-c", dir + "/bridge.yml", "--samples", dir + "/samples.tsv"],
                                                 environment: ["TZ": "UTC"])
        #expect(table.stdout.contains("@2026-12-01T10:25:00.000Z  zigbee2mqtt/basement  delivered      condition escalated step 1"), "\(table.stdout)")
    }
}
