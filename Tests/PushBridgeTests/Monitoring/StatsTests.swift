import Foundation
import Testing
@testable import PushBridge

@Suite("Stats counting")
struct StatsTests {
    let start = 1_700_000_000.0

    @Test(arguments: Outcome.allCases)
    func eachOutcomeIsCountedForTopicRouteAndTotals(outcome: Outcome) {
        let stats = Stats(maxTopics: 10, version: "t", startedAt: start)
        stats.received(topic: "a/b")
        stats.finished(topic: "a/b", decision: decision(outcome, route: "door"))
        let s = stats.snapshot(now: start + 1)
        var expected = Counters()
        expected.received = 1
        expected[outcome] = 1
        if outcome == .rejected { expected.rejectedByReason = [Counters.unknownReason: 1] }
        #expect(s.totals == expected)
        #expect(s.topics["a/b"]?.counters == expected)
        if outcome == .unrouted {
            #expect(s.routes.isEmpty)          // unrouted has no route
        } else {
            #expect(s.routes == ["door": expected])
        }
        #expect(s.inFlight == 0)
        #expect(s.filters == (outcome == .suppressed ? [Stats.unnamedFilter: 1] : [:]))
    }

    @Test func sideCountersReasonsAndFilters() {
        let stats = Stats(maxTopics: 10, version: "t", startedAt: start)
        let decisions = [
            decision(.delivered, route: "a", modified: true),
            decision(.delivered, route: "a", timedOut: true),
            decision(.delivered, route: "b", failed: true),
            decision(.suppressed, route: "a", by: "drop-debug"),
            decision(.suppressed, route: "b", by: "drop-debug"),
            decision(.suppressed, route: "b", by: "quiet-hours"),
            decision(.rejected, route: "a", reason: .payloadTooLarge),
            decision(.rejected, route: "b", reason: .payloadTooLarge),
            decision(.rejected, route: "b", reason: .templateError),
            decision(.expired, route: "a"),
            decision(.notDisplayed, route: "b"),
            decision(.unrouted),
        ]
        for d in decisions {
            stats.received(topic: "t")
            stats.finished(topic: "t", decision: d)
        }
        let s = stats.snapshot(now: start)
        let t = s.totals
        let outcomes: [Int] = [t.received, t.delivered, t.suppressed, t.rejected, t.expired, t.notDisplayed, t.unrouted]
        #expect(outcomes == [12, 3, 3, 3, 1, 1, 1])
        let sides: [Int] = [t.modified, t.timeout, t.extensionFailed, t.loopDropped, t.inFlight]
        #expect(sides == [1, 1, 1, 0, 0])
        #expect(t.rejectedByReason == ["PayloadTooLarge": 2, "TemplateError": 1])
        #expect(s.filters == ["drop-debug": 2, "quiet-hours": 1])
        #expect(s.topics["t"]?.counters == t)
        #expect(s.routes["a"]?.received == 5)
        #expect(s.routes["b"]?.received == 6)
        #expect(s.routes["a"]?.modified == 1 && s.routes["a"]?.timeout == 1 && s.routes["b"]?.extensionFailed == 1)
        #expect(s.routes["b"]?.rejectedByReason == ["PayloadTooLarge": 1, "TemplateError": 1])
        #expect(s.routes.values.allSatisfy { $0.satisfiesInvariant })
    }

    @Test func inFlightUntilFinished() {
        let stats = Stats(maxTopics: 10, version: "t", startedAt: start)
        for _ in 0..<3 { stats.received(topic: "x") }
        stats.received(topic: "y")
        stats.finished(topic: "x", decision: decision(.delivered))
        let s = stats.snapshot(now: start)
        #expect(s.inFlight == 3)
        #expect(s.topics["x"]?.counters.inFlight == 2)
        #expect(s.topics["y"]?.counters.inFlight == 1)
        #expect(s.totals.satisfiesInvariant && s.topics.values.allSatisfy { $0.counters.satisfiesInvariant })
        #expect(s.routes["r"]?.received == 1)   // routes count at finish
    }

    @Test func topicsBeyondMaxTopicsCountUnderOther() {
        let stats = Stats(maxTopics: 2, version: "t", startedAt: start)
        for topic in ["a", "b", "c", "d", "a", "c"] { stats.received(topic: topic) }
        stats.finished(topic: "c", decision: decision(.delivered))
        stats.finished(topic: "a", decision: decision(.rejected, reason: .badPriority))
        let s = stats.snapshot(now: start)
        #expect(Set(s.topics.keys) == ["a", "b", Stats.otherTopic])
        #expect(s.topics["a"]?.counters.received == 2)
        #expect(s.topics["a"]?.counters.rejected == 1)
        #expect(s.topics["b"]?.counters.received == 1)
        #expect(s.topics[Stats.otherTopic]?.counters.received == 3)
        #expect(s.topics[Stats.otherTopic]?.counters.delivered == 1)
        #expect(s.topics[Stats.otherTopic]?.counters.inFlight == 2)
        #expect(s.topics.values.allSatisfy { $0.counters.satisfiesInvariant })
    }

    @Test func maxTopicsZeroSendsEverythingToOther() {
        let stats = Stats(maxTopics: 0, version: "t", startedAt: start)
        stats.received(topic: "a")
        stats.loopDropped(topic: "b")
        let s = stats.snapshot(now: start)
        #expect(Array(s.topics.keys) == [Stats.otherTopic])
        #expect(s.topics[Stats.otherTopic]?.counters.received == 1)
        #expect(s.topics[Stats.otherTopic]?.counters.loopDropped == 1)
    }

    @Test func otherIsAbsentWhileUnused() {
        let stats = Stats(maxTopics: 5, version: "t", startedAt: start)
        stats.received(topic: "a")
        #expect(Array(stats.snapshot(now: start).topics.keys) == ["a"])
    }

    @Test func partitionSkippedIsCountedInTotalsOnly() {
        let stats = Stats(maxTopics: 5, version: "t", startedAt: start)
        stats.received(topic: "mine")
        for _ in 0..<3 { stats.partitionSkipped() }
        let s = stats.snapshot(now: start)
        #expect(s.totals.partitionSkipped == 3 && s.totals.received == 1)
        #expect(Array(s.topics.keys) == ["mine"])      // other partitions' topics take no slot
        #expect(s.totals.satisfiesInvariant)
        #expect(s.totals[StatsCounter.partitionSkipped] == 3)
    }

    @Test func loopDroppedIsNotReceived() {
        let stats = Stats(maxTopics: 5, version: "t", startedAt: start)
        stats.loopDropped(topic: "display/x")
        stats.loopDropped(topic: "display/x")
        let s = stats.snapshot(now: start)
        #expect(s.totals.loopDropped == 2 && s.totals.received == 0 && s.inFlight == 0)
        #expect(s.topics["display/x"]?.counters.loopDropped == 2)
        #expect(s.totals.satisfiesInvariant)
    }

    @Test func lastSeenUptimeAndConnectionFlags() {
        let clockValue = start + 42.25
        let stats = Stats(maxTopics: 5, version: "9.9", startedAt: start, clock: { clockValue })
        stats.received(topic: "a")
        #expect(!stats.snapshot(now: start).connected)
        stats.setConnected(true)
        let s = stats.snapshot(now: start + 60)
        #expect(s.topics["a"]?.lastSeen == clockValue)
        #expect(s.uptime == 60 && s.connected && s.version == "9.9" && s.startedAt == start)
        stats.setConnected(false)
        #expect(!stats.snapshot(now: start).connected)
    }

    @Test func histogramsFedFromDecisionsAndLatency() {
        let stats = Stats(maxTopics: 5, version: "t", startedAt: start)
        stats.received(topic: "a")
        stats.finished(topic: "a", decision: decision(.delivered, stage: 0.02))
        stats.received(topic: "a")
        stats.finished(topic: "a", decision: decision(.notDisplayed))   // stage did not run
        for ms in 1...100 { stats.endToEndLatency(seconds: Double(ms) / 1000) }
        let s = stats.snapshot(now: start)
        #expect(s.extensionDuration.count == 1)
        #expect(s.extensionDuration.sum == 0.02)
        #expect(s.latency.count == 100)
        #expect(abs(s.latencyP50Milliseconds - 50) < 50 * 0.26)
        #expect(abs(s.latencyP99Milliseconds - 99) < 99 * 0.26)
    }

    @Test func snapshotsAreIndependentCopies() {
        let stats = Stats(maxTopics: 5, version: "t", startedAt: start)
        stats.received(topic: "a")
        let first = stats.snapshot(now: start)
        stats.finished(topic: "a", decision: decision(.delivered))
        stats.endToEndLatency(seconds: 0.001)
        #expect(first.inFlight == 1 && first.topics["a"]?.counters.delivered == 0 && first.latency.count == 0)
        #expect(stats.snapshot(now: start).topics["a"]?.counters.delivered == 1)
    }

    /// Workers hammer the counters while snapshots are taken; every snapshot must satisfy the
    /// invariant everywhere, and the final counts must be exact.
    @Test func invariantHoldsUnderConcurrentUpdates() {
        let stats = Stats(maxTopics: 16, version: "t", startedAt: start)
        let workers = 4, perWorker = 20_000
        @Sendable func plan(_ w: Int, _ i: Int) -> (topic: String, decision: Decision) {
            let outcome = Outcome.allCases[(i + w) % Outcome.allCases.count]
            return ("w/\(w % 3)/\(i % 7)", decision(outcome, route: "r\(i % 3)",
                                                    reason: outcome == .rejected ? .badPriority : nil, by: "f"))
        }
        let group = DispatchGroup()
        for w in 0..<workers {
            DispatchQueue.global().async(group: group) {
                for i in 0..<perWorker {
                    let (topic, d) = plan(w, i)
                    stats.received(topic: topic)
                    if i % 5 == 0 { stats.loopDropped(topic: topic) }
                    stats.finished(topic: topic, decision: d)
                }
            }
        }
        var snapshots = 0, violations: [String] = []
        repeat {
            let s = stats.snapshot(now: start)
            snapshots += 1
            if !s.totals.satisfiesInvariant { violations.append("totals \(s.totals)") }
            for (name, t) in s.topics where !t.counters.satisfiesInvariant { violations.append("topic \(name)") }
            for (name, r) in s.routes where !(r.satisfiesInvariant && r.inFlight == 0) { violations.append("route \(name)") }
        } while group.wait(timeout: .now()) == .timedOut
        #expect(violations.isEmpty, "\(violations.prefix(5))")
        #expect(snapshots > 1)

        var expected = Counters()
        var expectedRoutes: [String: Int] = [:]
        for w in 0..<workers {
            for i in 0..<perWorker {
                let d = plan(w, i).decision
                expected.received += 1
                expected[d.outcome] += 1
                if i % 5 == 0 { expected.loopDropped += 1 }
                if d.outcome == .rejected { expected.rejectedByReason["BadPriority", default: 0] += 1 }
                if let r = d.route { expectedRoutes[r, default: 0] += 1 }
            }
        }
        let final = stats.snapshot(now: start)
        #expect(final.totals == expected)
        #expect(final.routes.mapValues(\.received) == expectedRoutes)
        #expect(final.filters == ["f": expected.suppressed])
        #expect(final.topics.values.reduce(0) { $0 + $1.counters.received } == expected.received)
    }
}
