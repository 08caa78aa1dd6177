import Foundation
import Testing
@testable import PushBridge

/// The lifecycle's state machine and its schedule, driven with a fake clock (times passed in).
@Suite struct ConditionEngineTests {
    static func route(every: String? = "10m", count: Int? = nil, steps: [String] = [], maxActive: Int = 10_000) throws -> RouteConfig {
        var r = RouteConfig(name: "leak", topic: "zigbee2mqtt/+")
        var c = ConditionConfig(key: try Template.parse("{{ topic }}"), active: try Expression.parse("payload.water_leak"))
        c.repeatEvery = every.flatMap(DurationParser.parse)
        c.repeatCount = count
        c.escalate = steps.map { EscalationStep(after: DurationParser.parse($0)!) }
        c.maxActive = maxActive
        r.condition = c
        return r
    }

    static func engine(_ route: RouteConfig, journal: Journal? = nil) -> ConditionEngine {
        let e = ConditionEngine(journal: journal, logger: LogCollector().logger())
        e.configure([route])
        return e
    }

    static let message = InboundMessage(topic: "zigbee2mqtt/basement", payload: Array(#"{"water_leak":true}"#.utf8), qos: 1,
                                      receivedAt: 0)

    @Test func raiseRepeatEscalateClear() throws {
        let e = Self.engine(try Self.route(every: "10m", count: 2, steps: ["15m"]))
        guard case .raised(let r) = e.observe(route: "leak", key: "k", active: true, message: Self.message, alertID: "A1", now: 1000) else {
            Issue.record("not raised"); return
        }
        #expect(r.alertID == "A1" && r.raisedAt == 1000 && r.repeats == 0 && r.step == 0)
        #expect(e.nextDue == 1600)
        // An active message while raised notifies nothing.
        guard case .alreadyRaised = e.observe(route: "leak", key: "k", active: true, message: Self.message, alertID: "A2", now: 1100) else {
            Issue.record("raised twice"); return
        }
        #expect(e.due(now: 1599).isEmpty)
        let first = e.due(now: 1600)
        #expect(first.map(\.kind) == [.repeat(1)])
        e.repeatFinished(route: "leak", key: "k", alertID: "A1", delivered: true)
        #expect(e.nextDue == 1900)  // the step at 15m comes before the next repeat at 20m
        #expect(e.due(now: 1900).map(\.kind) == [.step(1)])
        #expect(e.nextDue == 2500)  // the next repeat counts from the step
        #expect(e.due(now: 2500).map(\.kind) == [.repeat(2)])
        e.repeatFinished(route: "leak", key: "k", alertID: "A1", delivered: true)
        #expect(e.nextDue == nil)  // count reached, no more steps
        let counts = e.counts["leak"]!
        #expect(counts.raised == 1 && counts.repeated == 2 && counts.escalated == 1 && counts.active == 1)
        guard case .cleared(let c) = e.observe(route: "leak", key: "k", active: false, message: Self.message, alertID: "A3", now: 3000) else {
            Issue.record("not cleared"); return
        }
        #expect(c.alertID == "A1" && c.state == ConditionState.cleared)
        #expect(e.counts["leak"]!.cleared == 1 && e.counts["leak"]!.active == 0)
        guard case .notRaised = e.observe(route: "leak", key: "k", active: false, message: Self.message, alertID: "A4", now: 3001) else {
            Issue.record("cleared twice"); return
        }
        guard case .raised(let again) = e.observe(route: "leak", key: "k", active: true, message: Self.message, alertID: "A5", now: 4000) else {
            Issue.record("not raised again"); return
        }
        #expect(again.alertID == "A5")
    }

    @Test func aHeldBackRepeatIsNotCountedAndTriedAgain() throws {
        let e = Self.engine(try Self.route(every: "1m", count: 1))
        _ = e.observe(route: "leak", key: "k", active: true, message: Self.message, alertID: "A", now: 0)
        #expect(e.due(now: 60).map(\.kind) == [.repeat(1)])
        e.repeatFinished(route: "leak", key: "k", alertID: "A", delivered: false)  // quiet hours
        #expect(e.nextDue == 120)
        #expect(e.due(now: 120).map(\.kind) == [.repeat(1)])
        e.repeatFinished(route: "leak", key: "k", alertID: "A", delivered: true)
        #expect(e.nextDue == nil)
        #expect(e.counts["leak"]!.repeated == 1)
    }

    @Test func acknowledgeStopsAndSnoozePauses() throws {
        let e = Self.engine(try Self.route(every: "1m", steps: ["5m"]))
        _ = e.observe(route: "leak", key: "a", active: true, message: Self.message, alertID: "A", now: 0)
        _ = e.observe(route: "leak", key: "b", active: true, message: Self.message, alertID: "B", now: 0)
        let snoozed = e.acknowledge(Acknowledgement(alertID: "B", by: "alice", snooze: .seconds(600)), now: 10)
        #expect(snoozed?.snoozedUntil == 610 && snoozed?.acknowledged == false)
        let acked = e.acknowledge(Acknowledgement(route: "leak", key: "a", by: "bob"), now: 10)
        #expect(acked?.acknowledged == true && acked?.acknowledgedBy == "bob")
        #expect(e.nextDue == 610)
        #expect(e.due(now: 609).isEmpty)
        // Resumed: the step due during the snooze first, then the repeats.
        #expect(e.due(now: 610).map(\.kind) == [.step(1)])
        #expect(e.nextDue == 670)  // the next repeat counts from the step
        #expect(e.due(now: 670).map(\.kind) == [.repeat(1)])
        #expect(e.acknowledge(Acknowledgement(alertID: "nope"), now: 20) == nil)
        #expect(e.unknownAcknowledgements == 1)
        #expect(e.counts["leak"]!.acknowledged == 1)
        #expect(e.active.map(\.key) == ["a", "b"])
    }

    @Test func maxActiveForgetsTheOldest() throws {
        let e = Self.engine(try Self.route(maxActive: 2))
        for (i, key) in ["a", "b", "c"].enumerated() {
            _ = e.observe(route: "leak", key: key, active: true, message: Self.message, alertID: key, now: Double(i))
        }
        #expect(e.active.map(\.key) == ["b", "c"])
        #expect(e.counts["leak"]!.evicted == 1 && e.counts["leak"]!.active == 2)
    }

    @Test func tenThousandConditionsShareOneSchedule() throws {
        let e = Self.engine(try Self.route(every: "1m"))
        for i in 0..<10_000 {
            _ = e.observe(route: "leak", key: "k\(i)", active: true, message: Self.message, alertID: "id\(i)", now: Double(i % 60))
        }
        #expect(e.nextDue == 60)
        #expect(e.due(now: 60).count == 167)  // keys raised at second 0 (i % 60 == 0)
        #expect(e.due(now: 200).count == 10_000)  // those at 60 were due again at 120
    }

    @Test func aRemovedRouteForgetsItsConditions() throws {
        let e = Self.engine(try Self.route())
        _ = e.observe(route: "leak", key: "a", active: true, message: Self.message, alertID: "A", now: 0)
        e.configure([])
        #expect(e.active.isEmpty && e.nextDue == nil)
    }

    @Test func journalKeepsTheConditionsAcrossARestart() throws {
        let dir = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var config = JournalConfig()
        config.path = dir + "/journal"
        let route = try Self.route(every: "1m", steps: ["5m"])
        do {
            let journal = try Journal(config: config)
            let e = Self.engine(route, journal: journal)
            _ = e.observe(route: "leak", key: "a", active: true, message: Self.message, alertID: "A", now: 0)
            _ = e.due(now: 60)
            e.repeatFinished(route: "leak", key: "a", alertID: "A", delivered: true)
            _ = e.acknowledge(Acknowledgement(alertID: "A", snooze: .seconds(30)), now: 70)
            _ = e.observe(route: "leak", key: "b", active: true, message: Self.message, alertID: "B", now: 0)
            _ = e.observe(route: "leak", key: "b", active: false, message: Self.message, alertID: "-", now: 1)
        }
        let journal = try Journal(config: config)
        let e = Self.engine(route, journal: journal)
        e.restore()
        let r = try #require(e.active.first)
        #expect(e.active.count == 1)
        #expect(r.alertID == "A" && r.repeats == 1 && r.nextRepeatAt == 120 && r.snoozedUntil == 100)
        #expect(r.payload == Self.message.payload && r.topic == Self.message.topic && r.qos == 1)
        #expect(e.nextDue == 120)
        guard case .alreadyRaised = e.observe(route: "leak", key: "a", active: true, message: Self.message, alertID: "X", now: 130) else {
            Issue.record("raised twice after the restart"); return
        }
    }

    @Test func acknowledgementPayloads() throws {
        #expect(try Acknowledgement.parse(Array(#"{"alert_id":"x","by":"me","snooze":"30m"}"#.utf8)).get()
                == Acknowledgement(alertID: "x", by: "me", snooze: .seconds(1800)))
        #expect(try Acknowledgement.parse(Array(#"{"route":"r","key":"k"}"#.utf8)).get() == Acknowledgement(route: "r", key: "k"))
        #expect(throws: AckError.self) { try Acknowledgement.parse(Array(#"{"route":"r"}"#.utf8)).get() }
        #expect(throws: AckError.self) { try Acknowledgement.parse(Array("ack".utf8)).get() }
        #expect(throws: AckError.self) { try Acknowledgement.parse(Array(#"{"alert_id":"x","snooze":"soon"}"#.utf8)).get() }
        let ack = Acknowledgement(alertID: "x", by: "me", snooze: .seconds(90))
        #expect(try Acknowledgement.parse(ack.payload).get() == ack)
    }

    @Test func collapseIDsAreSafeAndBounded() {
        #expect(Withdrawal.collapseID(route: "leak", key: "zigbee2mqtt/basement sensor") == "leak-zigbee2mqtt-basement-sensor")
        let long = Withdrawal.collapseID(route: "leak", key: String(repeating: "x", count: 100))
        #expect(long.utf8.count == 64 && long.hasPrefix("leak-xxx"))
        #expect(long != Withdrawal.collapseID(route: "leak", key: String(repeating: "x", count: 101)))
    }

    @Test func withdrawJSON() {
        let w = Withdrawal(alertID: "A", collapseID: "leak-k", sourceTopic: "z/b", route: "leak")
        #expect(String(decoding: w.json, as: UTF8.self)
                == #"{"type":"withdraw","alert_id":"A","collapse_id":"leak-k","source_topic":"z/b","route":"leak","reason":"cleared"}"#)
    }

    @Test func strictActiveIsUnevaluableOnMissingPaths() throws {
        let e = try Expression.parse("payload.water_leak == true")
        func ctx(_ json: String) -> MessageContext {
            MessageContext(topic: "t", payload: (try? JSONValue.parse(Array(json.utf8))) ?? .string(json), raw: json)
        }
        #expect(e.evaluateStrictly(in: ctx(#"{"water_leak":true}"#)) == .bool(true))
        #expect(e.evaluateStrictly(in: ctx(#"{"water_leak":false}"#)) == .bool(false))
        #expect(e.evaluateStrictly(in: ctx(#"{"battery":90}"#)) == nil)
        #expect(e.evaluateStrictly(in: ctx("not json")) == nil)
        #expect(try Expression.parse("payload.a | default(false)").evaluateStrictly(in: ctx("{}")) == .bool(false))
        #expect(try Expression.parse("payload.items[3]").evaluateStrictly(in: ctx(#"{"items":[1]}"#)) == nil)
        #expect(try Expression.parse("payload.items[-1] > 0 && !payload.off").evaluateStrictly(in: ctx(#"{"items":[1],"off":false}"#)) == .bool(true))
        #expect(try Expression.parse("payload.s =~ \"^ON\"").evaluateStrictly(in: ctx(#"{"s":"ONLINE"}"#)) == .bool(true))
        #expect(try Expression.parse("payload == \"ON\"").evaluateStrictly(in: ctx("ON")) == .bool(true))
    }
}
