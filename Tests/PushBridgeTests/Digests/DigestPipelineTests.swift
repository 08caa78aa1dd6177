import Foundation
import Testing
@testable import PushBridge
@testable import PushBridgeCLI

/// A digest route's decisions without a broker: held alerts are suppressed by `digest`,
/// critical ones and a condition's clear never are, and the summary's templates see `digest.*`.
///
/// Payloads: Zigbee2MQTT's device availability (`zigbee2mqtt/<device>/availability`,
/// `{"state":"offline"}`) and its water leak sensors (`water_leak` true/false).
@Suite("Digests: decisions")
struct DigestPipelineTests {
    static let offline = #"{"state":"offline"}"#

    static func pipeline(_ digest: String, level: String = "active", clock: FakeWallClock) throws -> Pipeline {
        let config = try loadConfig("""
            routes:
              - name: device-offline
                topic: zigbee2mqtt/+/availability
                alert: {title: "{{ levels[1] }} offline", body: "since {{ now }}", interruption_level: "{{ payload.level | default('\(level)') }}", thread_id: zigbee}
                digest: \(digest)
              - name: leak
                topic: zigbee2mqtt/+/leak
                alert: {title: "Leak {{ levels[1] }}", body: "{{ topic }}"}
                condition: {key: "{{ topic }}", active: 'payload.water_leak == true'}
                digest: {window: 1m, max: 1}
            """)
        return Pipeline(config: config, logger: BridgeLogger(level: .error), clock: clock.stageClock)
    }

    static func decide(_ p: Pipeline, _ topic: String, _ payload: String, at now: Double) throws -> Decision {
        let m = InboundMessage(topic: topic, payload: Array(payload.utf8), qos: 1, retain: false, userProperties: [], receivedAt: now)
        guard case .decided(let d) = p.decide(m, id: NotificationRequest.newID(), now: now) else {
            Issue.record("not decided at once")
            throw CancellationError()
        }
        return d
    }

    @Test("the first max go on, the rest are suppressed by digest with a rule naming the key and the window's end")
    func heldAlertsAreSuppressed() throws {
        let clock = FakeWallClock(1_800_000_000)
        let p = try Self.pipeline(#"{window: 2m, max: 3, title: "{{ digest.titles | length }} more", body: "{{ digest.titles | join(', ') }}"}"#, clock: clock)
        var outcomes: [Outcome] = []
        for n in 0..<12 {
            clock.advance(1)
            let d = try Self.decide(p, "zigbee2mqtt/dev\(n)/availability", Self.offline, at: clock.now)
            outcomes.append(d.outcome)
            if n >= 3 {
                #expect(d.decidedBy == "digest" && d.publish.isEmpty)
                #expect(d.rule == "held for the digest of 'device-offline' (window ends 2027-01-15T08:02:01.000Z, after 3 delivered one by one)")
            }
        }
        #expect(outcomes == Array(repeating: .delivered, count: 3) + Array(repeating: .suppressed, count: 9))
        clock.advance(120)
        let due = p.digests.due(now: clock.now)
        #expect(due.count == 1)
        let summary = try #require(p.digestSummary(due[0], now: clock.now))
        #expect(summary.outcome == .delivered && summary.request?.id == due[0].id)
        #expect(summary.request?.collapseID == "device-offline-digest")
        let display = try JSONValue.parse(summary.publish[0].payload)
        #expect(display["title"] == .string("9 more"))
        #expect(display["body"] == .string((3..<12).map { "dev\($0) offline" }.joined(separator: ", ")))
        #expect(display["collapse_id"] == .string("device-offline-digest"))
        #expect(display["thread_id"] == .string("zigbee"))
        #expect(summary.publish[0].topic == "display/zigbee2mqtt/dev11/availability")
    }

    @Test("the default title and body; digest.keys, first_at and last_at")
    func defaults() throws {
        let clock = FakeWallClock(1_800_000_000)
        let p = try Self.pipeline("{window: 1m, max: 0}", clock: clock)
        _ = try Self.decide(p, "zigbee2mqtt/a/availability", Self.offline, at: clock.now)
        clock.advance(10)
        _ = try Self.decide(p, "zigbee2mqtt/b/availability", Self.offline, at: clock.now)
        clock.advance(50)
        let s = try #require(p.digests.due(now: clock.now).first)
        #expect(s.value["keys"] == .array([.string("zigbee2mqtt/a/availability"), .string("zigbee2mqtt/b/availability")]))
        #expect(s.value["first_at"] == .string("2027-01-15T08:00:00.000Z") && s.value["last_at"] == .string("2027-01-15T08:00:10.000Z"))
        let display = try JSONValue.parse(try #require(p.digestSummary(s, now: clock.now)).publish[0].payload)
        #expect(display["title"] == .string("2 more: device-offline"))
        #expect(display["body"] == .string("a offline, b offline"))
    }

    @Test("a critical alert is never held and does not count toward max")
    func criticalNeverHeld() throws {
        let clock = FakeWallClock(1_800_000_000)
        let p = try Self.pipeline("{window: 2m, max: 1}", clock: clock)
        #expect(try Self.decide(p, "zigbee2mqtt/a/availability", #"{"state":"offline","level":"critical"}"#, at: clock.now).outcome == .delivered)
        #expect(try Self.decide(p, "zigbee2mqtt/b/availability", Self.offline, at: clock.now).outcome == .delivered)
        #expect(try Self.decide(p, "zigbee2mqtt/c/availability", #"{"state":"offline","level":"critical"}"#, at: clock.now).outcome == .delivered)
        #expect(try Self.decide(p, "zigbee2mqtt/d/availability", Self.offline, at: clock.now).outcome == .suppressed)
        #expect(p.digests.counts["device-offline"]?.held == 1)
    }

    @Test("of a condition route only raises are digested: its clear (withdraw) goes out, its key is digest.keys'")
    func conditionRaisesOnly() throws {
        let clock = FakeWallClock(1_800_000_000)
        let p = try Self.pipeline("{window: 1m}", clock: clock)
        let first = try Self.decide(p, "zigbee2mqtt/kitchen/leak", #"{"water_leak":true}"#, at: clock.now)
        #expect(first.outcome == .delivered && first.conditionEvent?.kind == .raised)
        let second = try Self.decide(p, "zigbee2mqtt/cellar/leak", #"{"water_leak":true}"#, at: clock.now)
        #expect(second.outcome == .suppressed && second.decidedBy == "digest" && second.conditionEvent?.kind == .raised)
        #expect(p.conditions.active.count == 2, "a held raise is raised")
        let clear = try Self.decide(p, "zigbee2mqtt/cellar/leak", #"{"water_leak":false}"#, at: clock.now)
        #expect(clear.conditionEvent?.kind == .cleared && clear.withdrawal != nil && clear.publish.count == 1)
        clock.advance(60)
        let s = try #require(p.digests.due(now: clock.now).first)
        #expect(s.value["keys"] == .array([.string("zigbee2mqtt/cellar/leak")]))
        #expect(s.route == "leak")
    }

    @Test("a route without digest is untouched, and `pushbridge try` shows the held decision")
    func plainRoute() throws {
        let clock = FakeWallClock(1_800_000_000)
        let p = try Self.pipeline("{window: 1m, max: 0}", clock: clock)
        let d = TryRunner.run(pipeline: p, message: InboundMessage(topic: "zigbee2mqtt/x/availability", payload: Array(Self.offline.utf8),
                                                                  qos: 1, retain: false, userProperties: [], receivedAt: clock.now), now: clock.now)
        #expect(d.outcome == .suppressed && d.decidedBy == "digest")
        #expect(p.digests.counts["leak"] == nil)
    }
}
