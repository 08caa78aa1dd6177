import Foundation
import Testing
@testable import PushBridge

/// The digest counters in the stats JSON (`routes.<r>.digested`, `.digests`) and in
/// `/metrics` (`pushbridge_digest_total{route,kind}`).
@Suite("Digests: stats and metrics")
struct DigestStatsTests {
    static func snapshot() -> StatsSnapshot {
        var s = Stats(maxTopics: 10, version: "0", startedAt: 1_800_000_000).snapshot(now: 1_800_000_010)
        var counts = DigestCounts()
        counts.held = 9
        counts.sent = 1
        s.digests = ["device-offline": counts]
        return s
    }

    @Test func statsJSONHasThePerRouteCounters() throws {
        let json = try JSONValue.parse(Self.snapshot().json())
        #expect(json["routes"]?["device-offline"]?["digested"] == .int(9))
        #expect(json["routes"]?["device-offline"]?["digests"] == .int(1))
    }

    @Test func metricsPassTheCheckerWithBothKinds() {
        let text = prometheusText(Self.snapshot())
        let checker = PrometheusChecker(text)
        #expect(checker.errors.isEmpty, "\(checker.errors)")
        #expect(checker.types["pushbridge_digest_total"] == "counter")
        #expect(checker.value("pushbridge_digest_total", ["route": "device-offline", "kind": "held"]) == 9)
        #expect(checker.value("pushbridge_digest_total", ["route": "device-offline", "kind": "sent"]) == 1)
    }
}
