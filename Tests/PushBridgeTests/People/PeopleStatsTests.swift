import Foundation
import Testing
@testable import PushBridge

/// The people in the stats JSON, `/metrics` (checked strictly, and by promtool when installed)
/// and `GET /api/people`.
@Suite struct PeopleStatsTests {
    static let since = 1_796_630_000.25

    func snapshot() -> StatsSnapshot {
        var s = StatsSnapshot(version: "1", startedAt: 1_796_629_000, uptime: 5, connected: true, totals: Counters())
        s.people = PeopleCounts(presence: [.init(name: "alice", state: .home, since: Self.since),
                                           .init(name: "bob", state: .unknown, since: nil)],
                                held: ["doorbell": HeldCounts(held: 6, released: 5)])
        return s
    }

    @Test("stats: people with presence and since (null when unknown); routes with held and held_delivered")
    func json() throws {
        let v = try JSONValue.parse(snapshot().json())
        #expect(v["people"] == .object(["alice": .object(["presence": .string("home"), "since": .string(Timestamp.iso8601(Self.since))]),
                                        "bob": .object(["presence": .string("unknown"), "since": .null])]))
        #expect(v["people"]?["alice"]?["since"]?.stringValue?.hasSuffix("Z") == true)
        #expect(v["routes"]?["doorbell"]?["held"] == .int(6))
        #expect(v["routes"]?["doorbell"]?["held_delivered"] == .int(5))
        let api = try JSONValue.parse(PeopleCounts.json(snapshot().people!.presence))
        #expect(api == v["people"])
        // Without people: no key at all.
        let plain = StatsSnapshot(version: "1", startedAt: 0, uptime: 1, connected: true, totals: Counters())
        #expect(try JSONValue.parse(plain.json())["people"] == nil)
    }

    @Test("/metrics: one presence series per state, since while known, held per route; strict checker")
    func metrics() {
        let text = prometheusText(snapshot())
        #expect(text.contains(#"pushbridge_person_presence{person="alice",presence="home"} 1"#))
        #expect(text.contains(#"pushbridge_person_presence{person="alice",presence="away"} 0"#))
        #expect(text.contains(#"pushbridge_person_presence{person="bob",presence="unknown"} 1"#))
        #expect(text.contains(#"pushbridge_person_presence_since_seconds{person="alice"} 1796630000.25"#))
        #expect(!text.contains(#"pushbridge_person_presence_since_seconds{person="bob"}"#))
        #expect(text.contains(#"pushbridge_held_alerts_total{route="doorbell",result="held"} 6"#))
        #expect(text.contains(#"pushbridge_held_alerts_total{route="doorbell",result="delivered"} 5"#))
        let checker = PrometheusChecker(text)
        #expect(checker.errors.isEmpty, "\(checker.errors)")
        #expect(!prometheusText(StatsSnapshot(version: "1", startedAt: 0, uptime: 1, connected: true, totals: Counters()))
            .contains("pushbridge_person"))
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/promtool")))
    func promtoolAcceptsTheOutput() async throws {
        let r = try await ManagedProcess.run("/usr/bin/promtool", ["check", "metrics"], stdin: Array(prometheusText(snapshot()).utf8))
        #expect(r.status == 0 && r.exitedNormally && !r.timedOut, "\(r.stdout)\(r.stderr)")
    }
}
