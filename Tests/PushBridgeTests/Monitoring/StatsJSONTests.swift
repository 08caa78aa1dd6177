import Foundation
import Testing
@testable import PushBridge
@testable import PushBridgeCLI

@Suite("Stats JSON")
struct StatsJSONTests {
    let start = 1_764_430_938.125   // 2025-11-29T15:42:18.125Z

    /// A bridge with some of everything, one message still in flight.
    func busyStats() -> Stats {
        let stats = Stats(maxTopics: 100, version: "1.2.3", startedAt: start, clock: { 1_764_430_950.5 })
        stats.setConnected(true)
        for _ in 0..<4 { stats.received(topic: "home/front/doorbell") }
        stats.finished(topic: "home/front/doorbell", decision: decision(.delivered, route: "doorbell", modified: true, stage: 0.003))
        stats.finished(topic: "home/front/doorbell", decision: decision(.delivered, route: "doorbell"))
        stats.finished(topic: "home/front/doorbell", decision: decision(.suppressed, route: "doorbell", by: "drop-debug"))
        stats.received(topic: "weird \"topic\"\\\n")
        stats.finished(topic: "weird \"topic\"\\\n", decision: decision(.rejected, route: "any", reason: .payloadEmpty))
        stats.endToEndLatency(seconds: 0.0004)
        stats.endToEndLatency(seconds: 0.002)
        return stats
    }

    @Test func topLevelAndTotalsHaveExactlySpecKeys() throws {
        let json = try decodeJSON(busyStats().snapshot(now: start + 12.5).json())
        #expect(keys(json) == ["version", "started_at", "uptime_s", "connected", "in_flight", "totals",
                               "topics", "routes", "filters", "latency_ms"])
        #expect(keys(json["totals"]) == ["received", "delivered", "suppressed", "not_displayed", "rejected",
                                         "expired", "unrouted", "modified", "timeout", "extension_failed",
                                         "loop_dropped", "partition_skipped", "rejected_by_reason"])
        #expect(keys(json["latency_ms"]) == ["p50", "p99"])
        #expect(json["version"] == .string("1.2.3"))
        #expect(json["started_at"] == .string("2025-11-29T15:42:18.125Z"))
        #expect(json["uptime_s"] == .double(12.5))
        #expect(json["connected"] == .bool(true))
        #expect(json["in_flight"] == .int(1))
        #expect(json["totals"]?["rejected_by_reason"] == .object(["PayloadEmpty": .int(1)]))
        #expect(json["totals"]?["unrouted"] == .int(0))     // totals keep zeros
        #expect(json["filters"] == .object(["drop-debug": .object(["suppressed": .int(1)])]))
    }

    @Test func zeroCountersAreLeftOutOfTopicsAndRoutes() throws {
        let json = try decodeJSON(busyStats().snapshot(now: start + 1).json())
        #expect(json["topics"]?["home/front/doorbell"] == .object([
            "received": .int(4), "delivered": .int(2), "suppressed": .int(1), "modified": .int(1),
            "in_flight": .int(1), "last_seen": .string("2025-11-29T15:42:30.500Z"),
        ]))
        #expect(json["routes"]?["doorbell"] == .object([
            "received": .int(3), "delivered": .int(2), "suppressed": .int(1), "modified": .int(1),
        ]))
        #expect(json["routes"]?["any"] == .object([
            "received": .int(1), "rejected": .int(1), "rejected_by_reason": .object(["PayloadEmpty": .int(1)]),
        ]))
    }

    @Test func keysAreInSpecOrder() {
        let text = String(decoding: busyStats().snapshot(now: start + 1).json(), as: UTF8.self)
        #expect(text.hasPrefix(#"{"version":"1.2.3","started_at":"2025-11-29T15:42:18.125Z","uptime_s":1,"connected":true,"in_flight":1,"totals":{"received":5,"delivered":2,"suppressed":1,"not_displayed":0,"rejected":1,"expired":0,"unrouted":0,"modified":1,"timeout":0,"extension_failed":0,"loop_dropped":0,"partition_skipped":0,"rejected_by_reason":{"PayloadEmpty":1}},"topics":{"#))
        #expect(text.hasSuffix(#""filters":{"drop-debug":{"suppressed":1}},"latency_ms":{"p50":0.5,"p99":2}}"#))
    }

    @Test func awkwardNamesAreEscaped() throws {
        let json = try decodeJSON(busyStats().snapshot(now: start).json())
        #expect(json["topics"]?["weird \"topic\"\\\n"]?["rejected"] == .int(1))
    }

    @Test func roundTripsThroughParse() throws {
        let snapshot = busyStats().snapshot(now: start + 12.5)
        let bytes = snapshot.json()
        let parsed = try #require(StatsSnapshot.parse(try decodeJSON(bytes)))
        #expect(parsed.json() == bytes)
        #expect(parsed.totals == snapshot.totals)
        #expect(parsed.topics == snapshot.topics)
        #expect(parsed.routes == snapshot.routes)
        #expect(parsed.filters == snapshot.filters)
        #expect(parsed.startedAt == start && parsed.uptime == 12.5 && parsed.connected && parsed.version == "1.2.3")
        #expect(parsed.latencyP50Milliseconds == 0.5 && parsed.latencyP99Milliseconds == 2)
    }

    @Test func emptyStatsRoundTrip() throws {
        let snapshot = Stats(maxTopics: 5, version: "0", startedAt: 0).snapshot(now: 3)
        let text = String(decoding: snapshot.json(), as: UTF8.self)
        #expect(text.contains(#""topics":{},"routes":{},"filters":{},"latency_ms":{"p50":0,"p99":0}"#))
        let parsed = try #require(StatsSnapshot.parse(try decodeJSON(snapshot.json())))
        #expect(parsed.json() == snapshot.json())
    }

    @Test(arguments: [
        #"{}"#,
        #"[]"#,
        #"{"version":"1","started_at":"2025-11-29T15:42:18.125Z","uptime_s":1,"connected":true}"#,
        #"{"version":"1","started_at":"yesterday","uptime_s":1,"connected":true,"totals":{}}"#,
        #"{"version":1,"started_at":"2025-11-29T15:42:18.125Z","uptime_s":1,"connected":true,"totals":{}}"#,
        #"{"version":"1","started_at":"2025-11-29T15:42:18.125Z","uptime_s":1,"connected":"yes","totals":{}}"#,
        #"{"version":"1","started_at":"2025-11-29T15:42:18.125Z","uptime_s":1,"connected":true,"totals":{"received":"4"}}"#,
        #"{"version":"1","started_at":"2025-11-29T15:42:18.125Z","uptime_s":1,"connected":true,"totals":{},"topics":{"a":3}}"#,
        #"{"version":"1","started_at":"2025-11-29T15:42:18.125Z","uptime_s":1,"connected":true,"totals":{"rejected_by_reason":[]}}"#,
    ])
    func parseRejectsWhatIsNotAStatsDocument(text: String) throws {
        #expect(StatsSnapshot.parse(try decodeJSON(Array(text.utf8))) == nil)
    }

    @Test func parseAcceptsMinimalDocument() throws {
        let text = #"{"version":"1","started_at":"2025-11-29T15:42:18Z","uptime_s":2,"connected":false,"in_flight":2,"totals":{"received":2}}"#
        let s = try #require(StatsSnapshot.parse(try decodeJSON(Array(text.utf8))))
        #expect(s.startedAt == 1_764_430_938 && s.inFlight == 2 && s.totals.received == 2 && s.topics.isEmpty)
        #expect(s.totals.satisfiesInvariant)
    }

    @Test(arguments: [
        ("1970-01-01T00:00:00Z", 0.0), ("1970-01-01T00:00:01.5Z", 1.5),
        ("2025-11-29T15:42:18.125Z", 1_764_430_938.125), ("2000-02-29T23:59:59.999Z", 951_868_799.999),
    ])
    func timestampsParse(text: String, seconds: Double) {
        #expect(abs((StatsSnapshot.parseTimestamp(text) ?? -1) - seconds) < 1e-6)
    }

    @Test(arguments: ["", "2025-11-29 15:42:18Z", "2025-11-29T15:42:18", "2025-13-29T15:42:18Z", "2025-11-29T15:42:18.Z", "x025-11-29T15:42:18Z"])
    func badTimestampsDoNotParse(text: String) {
        #expect(StatsSnapshot.parseTimestamp(text) == nil)
    }
}
