import Foundation
import Testing
@testable import PushBridge

/// `depends_on` in the engine, with a fake clock (times passed in): a dependent raised while
/// its parent is raised is superseded (stored, counted, never scheduled); the parent's clear
/// promotes those still active and queues one announcement; those cleared meanwhile vanish.
@Suite struct ConditionDependencyTests {
    static func routes(dependsKey: String? = nil, every: String = "10m", steps: [String] = []) throws -> [RouteConfig] {
        var bridge = RouteConfig(name: "bridge", topic: "z2m/bridge/state")
        bridge.condition = ConditionConfig(key: try Template.parse("{{ topic }}"), active: try Expression.parse("payload.offline"))
        var device = RouteConfig(name: "device", topic: "z2m/+/availability")
        var c = ConditionConfig(key: try Template.parse("{{ topic }}"), active: try Expression.parse("payload.offline"))
        c.repeatEvery = DurationParser.parse(every)
        c.escalate = steps.map { EscalationStep(after: DurationParser.parse($0)!) }
        c.dependsOn = "bridge"
        c.dependsKey = try dependsKey.map { try Template.parse($0) }
        device.condition = c
        return [bridge, device]
    }

    static func engine(_ routes: [RouteConfig], journal: Journal? = nil) -> ConditionEngine {
        let e = ConditionEngine(journal: journal, logger: LogCollector().logger())
        e.configure(routes, now: 0)
        return e
    }

    static func message(_ topic: String) -> InboundMessage {
        InboundMessage(topic: topic, payload: Array(#"{"offline":true}"#.utf8), qos: 1, receivedAt: 0)
    }

    @discardableResult
    static func observe(_ e: ConditionEngine, _ route: String, _ key: String, _ active: Bool, at now: Double,
                        dependsKey: String? = nil) -> ConditionEngine.Transition {
        e.observe(route: route, key: key, active: active, message: message(key), alertID: "\(route)-\(key)-\(now)", now: now,
                  dependsKey: dependsKey)
    }

    @Test func supersededWhileTheParentIsRaisedThenAnnouncedOnce() throws {
        let e = Self.engine(try Self.routes(steps: ["30m"]))
        Self.observe(e, "bridge", "b", true, at: 100)
        for (i, key) in ["d1", "d2", "d3"].enumerated() {
            guard case .superseded(let r) = Self.observe(e, "device", key, true, at: 200 + Double(i)) else {
                Issue.record("\(key) not superseded"); return
            }
            #expect(r.state == .superseded && r.supersededBy == "bridge" && r.nextRepeatAt == nil)
        }
        // Active again while superseded: state, nothing changes.
        guard case .alreadyRaised = Self.observe(e, "device", "d1", true, at: 250) else { Issue.record("raised twice"); return }
        #expect(e.counts["device"]!.superseded == 3 && e.counts["device"]!.raised == 0 && e.counts["device"]!.active == 3)
        #expect(e.active.filter { $0.state == .superseded }.map(\.key) == ["d1", "d2", "d3"])
        // Superseded: no repeat, no step.
        #expect(e.nextDue == nil && e.due(now: 10_000).isEmpty)
        // One clears meanwhile: silently.
        guard case .clearedSilently(let gone) = Self.observe(e, "device", "d2", false, at: 300) else { Issue.record("not silent"); return }
        #expect(gone.alertID == "device-d2-201.0")
        #expect(e.counts["device"]!.cleared == 1)
        // The parent clears: one announcement of the two still active, due at once.
        guard case .cleared = Self.observe(e, "bridge", "b", false, at: 20_000) else { Issue.record("parent not cleared"); return }
        #expect(e.nextDue == 20_000)
        let work = e.due(now: 20_000)
        let announcement = try #require(work.first)
        #expect(announcement.kind == .announcement(parent: "bridge"))
        #expect(announcement.dependents.map(\.key) == ["d1", "d3"] && announcement.record.key == "d1")
        #expect(work.count == 1)
        // Ordinary from now on: repeats and steps count from the announcement.
        #expect(e.active.allSatisfy { $0.state != .superseded })
        let d1 = try #require(e.active.first { $0.key == "d1" })
        #expect(d1.announcedAt == 20_000 && d1.nextRepeatAt == 20_600 && d1.raisedAt == 200)
        #expect(e.due(now: 20_599).isEmpty)
        #expect(e.due(now: 20_600).map(\.kind) == [.repeat(1), .repeat(1)])
        e.repeatFinished(route: "device", key: "d1", alertID: d1.alertID, delivered: true)
        #expect(e.due(now: 21_800).contains { $0.kind == .step(1) && $0.record.key == "d1" })
        // A clear of a promoted one is an ordinary clear again.
        guard case .cleared = Self.observe(e, "device", "d3", false, at: 22_000) else { Issue.record("not an ordinary clear"); return }
    }

    @Test func aDependentRaisedBeforeItsParentStaysOrdinary() throws {
        let e = Self.engine(try Self.routes())
        guard case .raised = Self.observe(e, "device", "early", true, at: 0) else { Issue.record("not raised"); return }
        Self.observe(e, "bridge", "b", true, at: 100)
        #expect(e.due(now: 600).map(\.kind) == [.repeat(1)])
        Self.observe(e, "bridge", "b", false, at: 700)
        #expect(e.nextDue == 1200)  // no announcement: it was told already
    }

    @Test func aDependentThatClearsBeforeTheAnnouncementIsLeftOut() throws {
        let e = Self.engine(try Self.routes())
        Self.observe(e, "bridge", "b", true, at: 0)
        Self.observe(e, "device", "d1", true, at: 1)
        Self.observe(e, "device", "d2", true, at: 2)
        Self.observe(e, "bridge", "b", false, at: 10)
        Self.observe(e, "device", "d2", false, at: 10)  // promoted, then cleared before the timer ran
        #expect(e.due(now: 10).first?.dependents.map(\.key) == ["d1"])
        // All of them cleared: no announcement at all.
        Self.observe(e, "bridge", "b", true, at: 20)
        Self.observe(e, "device", "d3", true, at: 21)
        Self.observe(e, "bridge", "b", false, at: 30)
        Self.observe(e, "device", "d3", false, at: 30)
        #expect(e.due(now: 30).isEmpty)
    }

    @Test func withoutDependsKeyAnyParentConditionSupersedes() throws {
        let e = Self.engine(try Self.routes())
        Self.observe(e, "bridge", "b1", true, at: 0)
        Self.observe(e, "bridge", "b2", true, at: 0)
        guard case .superseded = Self.observe(e, "device", "d", true, at: 1) else { Issue.record("not superseded"); return }
        Self.observe(e, "bridge", "b1", false, at: 2)
        #expect(e.due(now: 2).isEmpty)  // b2 is still raised
        Self.observe(e, "bridge", "b2", false, at: 3)
        #expect(e.due(now: 3).map(\.kind) == [.announcement(parent: "bridge")])
    }

    @Test func withDependsKeyOnlyThatParentSupersedes() throws {
        let e = Self.engine(try Self.routes(dependsKey: "{{ levels[0] }}/bridge/state"))
        Self.observe(e, "bridge", "z2m/bridge/state", true, at: 0)
        guard case .superseded(let r) = Self.observe(e, "device", "z2m/a/availability", true, at: 1, dependsKey: "z2m/bridge/state") else {
            Issue.record("not superseded"); return
        }
        #expect(r.parentKey == "z2m/bridge/state")
        // Another instance's bridge is not raised: an ordinary raise.
        guard case .raised = Self.observe(e, "device", "other/b/availability", true, at: 2, dependsKey: "other/bridge/state") else {
            Issue.record("superseded by the wrong parent"); return
        }
        Self.observe(e, "bridge", "other/bridge/state", true, at: 3)
        Self.observe(e, "bridge", "other/bridge/state", false, at: 4)
        #expect(e.due(now: 4).isEmpty)  // not a's parent
        Self.observe(e, "bridge", "z2m/bridge/state", false, at: 5)
        #expect(e.due(now: 5).first?.dependents.map(\.key) == ["z2m/a/availability"])
    }

    @Test func aChainAnnouncesOneLevelAtATime() throws {
        var routes = try Self.routes()
        var leaf = RouteConfig(name: "sensor", topic: "z2m/+/sensor")
        var c = ConditionConfig(key: try Template.parse("{{ topic }}"), active: try Expression.parse("payload.offline"))
        c.dependsOn = "device"
        leaf.condition = c
        routes.append(leaf)
        let e = Self.engine(routes)
        Self.observe(e, "bridge", "b", true, at: 0)
        Self.observe(e, "device", "d", true, at: 1)   // superseded by bridge
        guard case .superseded = Self.observe(e, "sensor", "s", true, at: 2) else { Issue.record("not superseded"); return }
        Self.observe(e, "bridge", "b", false, at: 3)
        #expect(e.due(now: 3).map(\.kind) == [.announcement(parent: "bridge")])  // the device; the sensor waits for it
        #expect(e.active.first { $0.key == "s" }?.state == .superseded)
        Self.observe(e, "device", "d", false, at: 4)
        #expect(e.due(now: 4).map(\.kind) == [.announcement(parent: "device")])
    }

    @Test func aReloadWithoutDependsOnAnnouncesTheSuperseded() throws {
        let routes = try Self.routes()
        let e = Self.engine(routes)
        Self.observe(e, "bridge", "b", true, at: 0)
        Self.observe(e, "device", "d", true, at: 1)
        var plain = routes
        plain[1].condition?.dependsOn = nil
        e.configure(plain, now: 50)
        #expect(e.due(now: 50).first?.dependents.map(\.key) == ["d"])
        #expect(e.active.first { $0.key == "d" }?.nextRepeatAt == 650)
    }

    @Test func theJournalKeepsSupersededAcrossARestart() throws {
        let dir = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var config = JournalConfig()
        config.path = dir + "/journal"
        let routes = try Self.routes(dependsKey: "z2m/bridge/state")
        do {
            let e = Self.engine(routes, journal: try Journal(config: config))
            Self.observe(e, "bridge", "z2m/bridge/state", true, at: 0)
            Self.observe(e, "device", "a", true, at: 1, dependsKey: "z2m/bridge/state")
            Self.observe(e, "device", "b", true, at: 2, dependsKey: "z2m/bridge/state")
        }
        let e = Self.engine(routes, journal: try Journal(config: config))
        e.restore(now: 100)
        let a = try #require(e.active.first { $0.key == "a" })
        #expect(a.state == .superseded && a.supersededBy == "bridge" && a.parentKey == "z2m/bridge/state")
        #expect(a.apiValue["state"] == .string("superseded"))
        #expect(e.nextDue == nil)  // nothing scheduled while superseded
        Self.observe(e, "bridge", "z2m/bridge/state", false, at: 200)
        #expect(e.due(now: 200).first?.dependents.map(\.key) == ["a", "b"])
        // The promotion is stored: a second restart has them as ordinary raised conditions.
        let again = Self.engine(routes, journal: try Journal(config: config))
        again.restore(now: 300)
        #expect(again.active.map(\.state) == [.raised, .raised] && again.active.first?.announcedAt == 200)
        #expect(again.nextDue == 800)
    }

    @Test func aSupersededConditionWhoseParentIsGoneAfterARestartIsAnnounced() throws {
        let dir = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var config = JournalConfig()
        config.path = dir + "/journal"
        let routes = try Self.routes()
        do {
            let journal = try Journal(config: config)
            let e = Self.engine(routes, journal: journal)
            Self.observe(e, "bridge", "b", true, at: 0)
            Self.observe(e, "device", "d", true, at: 1)
            // A crash between the parent's removal and its dependents' promotion: only the first written.
            try journal.saveCondition(route: "bridge", key: "b", value: nil)
        }
        let e = Self.engine(routes, journal: try Journal(config: config))
        e.restore(now: 100)
        #expect(e.due(now: 100).first?.dependents.map(\.key) == ["d"])
    }
}
