import Foundation
import Testing
@testable import PushBridge

/// docs/metrics.md names every metric that `/metrics` of a running bridge prints and every key
/// of its stats snapshot, read from a real bridge on a real broker after traffic that reaches
/// each kind of counter (delivered, suppressed, rejected, a filter's eviction).
@Suite("Monitoring integration: every metric and stats key is documented")
struct MetricsDocumentedTests {
    static let metricsDoc = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/metrics.md")

    /// The keys of a stats snapshot that are names, not data: topic, route and filter names
    /// and rejection reasons are left out, their entries' keys kept.
    static func keys(_ value: JSONValue, under parent: String = "") -> Set<String> {
        guard case .object(let members) = value else { return [] }
        var out: Set<String> = []
        for (key, child) in members {
            if ["topics", "routes", "filters", "rejected_by_reason"].contains(parent) {
                out.formUnion(keys(child))
            } else {
                out.insert(key)
                out.formUnion(keys(child, under: key))
            }
        }
        return out
    }

    @Test("every metric family of /metrics and every stats key is in docs/metrics.md")
    func everyMetricAndStatsKeyIsDocumented() async throws {
        let broker = try TestBroker()
        let p = uniqueName("md")
        let http = try LoopbackPorts.free()
        let yaml = brokerSection(broker, clientID: uniqueName("bridge")) + """

        entitlements: [com.apple.developer.usernotifications.filtering]
        routes:
          - {name: alerts, topic: "\(p)/alerts/#", alert: {body: "{{ raw }}"}}
          - {name: passthrough, topic: "\(p)/apns/#", input: apns}
        extension:
          filters:
            - {name: once, dedupe: {key: "{{ raw }}", window: 1m, max_keys: 1}}
        display:
          topic: "display/{{ topic }}"
        monitoring:
          interval: 200ms
          http: "127.0.0.1:\(http)"
        """
        let bridge = try InProcessBridge.start(yaml: yaml)
        try await waitUntilReady(port: http)
        let sender = try await TestClient.connected(to: broker)
        for body in ["a", "a", "b", "c"] { try sender.publish("\(p)/alerts/door", body) }
        try sender.publish("\(p)/apns/x", "not json")
        var stats: JSONValue = .null
        try await eventually("5 messages finished", timeout: .seconds(20)) {
            stats = try JSONValue.parse(try httpGet(port: http, path: "/api/stats").body)
            return stats["totals"]?["received"] == .int(5) && stats["in_flight"] == .int(0)
        }
        let metrics = try httpGet(port: http, path: "/metrics").body
        try await bridge.stop()

        let doc = try String(contentsOf: Self.metricsDoc, encoding: .utf8)
        let checker = PrometheusChecker(metrics)
        #expect(checker.errors.isEmpty, "\(checker.errors)")
        var families = Set(checker.types.keys)
        for sample in checker.samples {
            var name = sample.name
            for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) {
                let base = String(name.dropLast(suffix.count))
                if ["histogram", "summary"].contains(checker.types[base]) { name = base }
            }
            families.insert(name)
        }
        #expect(families.count >= 19, "\(families.sorted())")
        for name in families.sorted() {
            #expect(doc.contains("`\(name)`"), "docs/metrics.md does not name the metric \(name)")
        }
        for sample in checker.samples {
            for (label, _) in sample.labels {
                #expect(doc.contains("`\(label)`"), "docs/metrics.md does not name the label \(label) of \(sample.name)")
            }
        }
        let statsKeys = Self.keys(stats)
        #expect(statsKeys.isSuperset(of: ["totals", "evicted", "delivery", "last_seen", "p99"]), "\(statsKeys.sorted())")
        for key in statsKeys.sorted() {
            #expect(doc.contains("`\(key)`"), "docs/metrics.md does not name the stats key \(key)")
        }
    }
}
