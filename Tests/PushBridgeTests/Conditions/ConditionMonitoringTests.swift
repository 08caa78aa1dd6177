import Foundation
import Testing
@testable import PushBridge

/// The conditions in the stats, `/metrics`, Home Assistant discovery and its events.
@Suite struct ConditionMonitoringTests {
    static func snapshot() -> StatsSnapshot {
        var s = StatsSnapshot(version: "t", startedAt: 0, uptime: 1, connected: true, totals: Counters())
        var c = ConditionCounts()
        c.active = 2
        c.raised = 3
        c.repeated = 4
        c.escalated = 1
        c.acknowledged = 1
        c.cleared = 1
        s.conditions = ["leak": c]
        return s
    }

    @Test func statsCarryEachConditionRoute() throws {
        let json = try JSONValue.parse(Self.snapshot().json())
        #expect(json["routes"]?["leak"]?["conditions"] == .object([
            "active": .int(2), "raised": .int(3), "repeated": .int(4), "escalated": .int(1),
            "acknowledged": .int(1), "cleared": .int(1), "superseded": .int(0)]))
    }

    @Test func metricsHaveTransitionsAndTheGauge() {
        let text = prometheusText(Self.snapshot())
        for (state, n) in [("raised", 3), ("repeated", 4), ("escalated", 1), ("acknowledged", 1), ("cleared", 1)] {
            #expect(text.contains("pushbridge_condition_transitions_total{route=\"leak\",state=\"\(state)\"} \(n)"), "\(state)")
        }
        #expect(text.contains("# TYPE pushbridge_conditions_active gauge"))
        #expect(text.contains("pushbridge_conditions_active{route=\"leak\"} 2"))
    }

    @Test func discoveryAnnouncesTheLifecycle() throws {
        let config = try loadConfig("""
            routes:
              - name: leak
                topic: zigbee2mqtt/+
                condition: {key: "{{ topic }}", active: 'payload.water_leak == true'}
              - {name: plain, topic: other/+}
            monitoring: {stats_topic: pushbridge/stats, status_topic: pushbridge/status}
            homeassistant: {}
            """)
        let builder = try #require(DiscoveryBuilder(config: config, version: "t"))
        let leak = builder.routeEntities("leak")
        let event = try #require(leak.first { $0.component == "event" })
        #expect(event.config["event_types"] == .array(["delivered", "raised", "repeated", "escalated", "acknowledged",
                                                       "snoozed", "cleared"].map(JSONValue.string)))
        let active = try #require(leak.first { $0.objectID.hasSuffix("_leak_active_conditions") })
        #expect(jsonString(active.config["value_template"]).contains("get('conditions')"))
        let plain = builder.routeEntities("plain")
        #expect(plain.first { $0.component == "event" }?.config["event_types"] == .array([.string("delivered")]))
        #expect(!plain.contains { $0.objectID.hasSuffix("_active_conditions") })
    }

    @Test func conditionEventPayload() throws {
        var r = ConditionRecord(route: "leak", key: "zigbee2mqtt/cellar", alertID: "A", raisedAt: 0,
                                topic: "zigbee2mqtt/cellar", payload: [])
        r.acknowledgedBy = "alice"
        let json = try JSONValue.parse(AlertEvent.payload(ConditionEvent(kind: .acknowledged, record: r, collapseID: "leak-c")))
        #expect(json == .object(["event_type": .string("acknowledged"), "alert_id": .string("A"),
                                 "collapse_id": .string("leak-c"), "key": .string("zigbee2mqtt/cellar"),
                                 "route": .string("leak"), "source_topic": .string("zigbee2mqtt/cellar"),
                                 "repeat": .int(0), "step": .int(0), "by": .string("alice")]))
    }

    @Test func apiEntryHasEveryKey() {
        var r = ConditionRecord(route: "leak", key: "k", alertID: "A", raisedAt: 1_800_000_000, topic: "t", payload: [])
        #expect(r.apiValue["acknowledged_by"] == .null && r.apiValue["snoozed_until"] == .null)
        r.snoozedUntil = 1_800_000_600
        r.acknowledged = true
        r.acknowledgedBy = "bob"
        #expect(r.apiValue == .object(["alert_id": .string("A"), "route": .string("leak"), "key": .string("k"),
                                       "state": .string("raised"), "raised_at": .string("2027-01-15T08:00:00.000Z"),
                                       "repeat": .int(0), "step": .int(0), "acknowledged_by": .string("bob"),
                                       "snoozed_until": .string("2027-01-15T08:10:00.000Z"),
                                       "superseded_by": .null]))
        // While superseded, the entry names the depends_on route it waits for.
        r.state = .superseded
        r.supersededBy = "zigbee-bridge-offline"
        #expect(r.apiValue["superseded_by"] == .string("zigbee-bridge-offline"))
        r.state = .raised
        #expect(r.apiValue["superseded_by"] == .null)
    }
}
