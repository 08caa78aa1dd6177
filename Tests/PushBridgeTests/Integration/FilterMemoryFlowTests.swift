import Foundation
import Testing
@testable import PushBridge

/// Bounded filter memory on a running bridge (issue 17: the eviction counter, the metric,
/// one log line) and memory kept across a reload.
@Suite("Integration: filter memory")
struct FilterMemoryFlowTests {
    @Test("a rate_limit past max_keys: evictions in the stats topic and /metrics, one warning in the log")
    func evictionsAreVisible() async throws {
        let s = try await Scenario.start()
        let bridge = try InProcessBridge.start(yaml: s.yaml("""
            entitlements: [com.apple.developer.usernotifications.filtering]
            routes:
              - {name: plugs, topic: "\(s.ns)/in/#", qos: 0, alert: {title: "{{ topic }}"}}
            extension:
              filters:
                - name: three-a-minute
                  rate_limit: {key: "{{ topic }}", max: 3, window: 1m, max_keys: 5}
            """))
        try await s.waitUntilOnline()
        for i in 0..<20 { try s.publish("plug\(i)", "{}", qos: 0) }
        let stats = try await s.waitForStats("20 decided with 15 evictions") {
            total($0, "received") == 20 && $0["filters"]?["three-a-minute"]?["evicted"] == .int(15)
        }
        #expect(total(stats, "delivered") == 20)
        let metrics = prometheusText(bridge.bridge.snapshot())
        #expect(metrics.contains("pushbridge_filter_evictions_total{filter=\"three-a-minute\"} 15"), "\(metrics)")
        let warnings = bridge.log.lines.filter { $0.contains("filter 'three-a-minute' remembers at most 5 keys") }
        #expect(warnings.count == 1, "\(bridge.log.lines.suffix(5))")
        #expect(warnings.first?.contains("warning") == true)
        try await bridge.stop()
    }

    @Test("a reload keeps the memory of an unchanged changed-filter and forgets an edited one")
    func reloadKeepsMemory() async throws {
        let s = try await Scenario.start()
        let clientID = uniqueName("bridge")
        func yaml(_ deadband: String) -> String {
            s.yaml("""
            entitlements: [com.apple.developer.usernotifications.filtering]
            routes:
              - {name: state, topic: "\(s.ns)/in/#", input: text, alert: {title: "{{ raw }}"}}
            extension:
              filters:
                - name: door
                  changed: {key: "{{ topic }}", value: "{{ raw }}"\(deadband)}
            """, clientID: clientID)
        }
        let bridge = try InProcessBridge.start(yaml: yaml(""))
        try await s.waitUntilOnline()
        try s.publish("door", "on")
        _ = try await s.waitFor(s.display("door"))
        let same = try ConfigLoader.load(text: yaml(""), path: "bridge.yml", environment: [:]).get()
        #expect(await bridge.bridge.apply(same) == .applied(warnings: []))
        try s.publish("door", "on")    // remembered: suppressed
        try s.publish("door", "off")   // a change: shown
        _ = try await s.waitFor(s.display("door"), count: 2)
        let edited = try ConfigLoader.load(text: yaml(", deadband: 1"), path: "bridge.yml", environment: [:]).get()
        #expect(await bridge.bridge.apply(edited) == .applied(warnings: []))
        try s.publish("door", "off")   // the edited filter starts afresh: shown
        let shown = try await s.waitFor(s.display("door"), count: 3)
        #expect(try shown.map { try JSONValue.parse($0.payload)["title"] } == [.string("on"), .string("off"), .string("off")])
        let stats = try await s.waitForStats("4 decided") { total($0, "received") == 4 && $0["in_flight"] == .int(0) }
        #expect(stats["filters"]?["door"]?["suppressed"] == .int(1))
        try await bridge.stop()
    }
}
