import Testing
@testable import PushBridge

@Suite struct DiscoveryBuilderTests {
    static func builder(_ extra: String = "", ha: String = "{device_name: Hall}") throws -> DiscoveryBuilder {
        let yaml = """
        broker: {client_id: Hall-1}
        routes:
          - {name: doorbell, topic: home/+/doorbell}
          - {name: Front Door, topic: home/front/door}
        homeassistant: \(ha)
        \(extra)
        """
        return try #require(DiscoveryBuilder(config: try loadConfig(yaml), version: "9.9.9"))
    }

    static func entity(_ entities: [DiscoveryEntity], _ objectID: String) throws -> DiscoveryEntity {
        try #require(entities.first { $0.objectID == objectID }, "no \(objectID)")
    }

    @Test func noSectionNoBuilder() throws {
        #expect(DiscoveryBuilder(config: try loadConfig("routes: [{topic: a}]\n"), version: "1") == nil)
    }

    @Test func oneDeviceFourBridgeEntitiesAndFivePerRoute() throws {
        let b = try Self.builder()
        let entities = b.entities(routes: ["doorbell", "Front Door"])
        #expect(entities.count == 4 + 2 * 5)
        #expect(entities.map(\.topic).prefix(4) == [
            "homeassistant/binary_sensor/hall_1/hall_1_connected/config",
            "homeassistant/sensor/hall_1/hall_1_in_flight/config",
            "homeassistant/sensor/hall_1/hall_1_latency_p99/config",
            "homeassistant/notify/hall_1/hall_1_notify/config",
        ])
        #expect(entities.filter { $0.route == "Front Door" }.map(\.objectID) == [
            "hall_1_front_door_received", "hall_1_front_door_delivered", "hall_1_front_door_suppressed",
            "hall_1_front_door_rejected", "hall_1_front_door",
        ])
        #expect(Set(entities.map(\.topic)).count == entities.count)
        for e in entities {
            let c = e.config
            #expect(c["object_id"] == .string(e.objectID))
            #expect(c["device"] == .object([
                "identifiers": .array([.string("pushbridge:Hall-1")]), "name": .string("Hall"),
                "manufacturer": .string("pushbridge"), "model": .string("MQTT notification bridge"),
                "sw_version": .string("9.9.9"),
            ]))
            #expect(c["origin"] == .object(["name": .string("pushbridge"), "sw_version": .string("9.9.9")]))
            // The payload is the config, as JSON.
            #expect(try JSONValue.parse(e.payload) == c)
        }
    }

    @Test func availabilityIsTheStatusTopicExceptForTheConnectivitySensor() throws {
        let entities = try Self.builder("monitoring: {status_topic: hall/status, stats_topic: hall/stats}\n")
            .entities(routes: ["doorbell"])
        for e in entities where e.objectID != "hall_1_connected" {
            #expect(e.config["availability_topic"] == .string("hall/status"), "\(e.objectID)")
            #expect(e.config["payload_available"] == .string("online"))
            #expect(e.config["payload_not_available"] == .string("offline"))
        }
        let c = try Self.entity(entities, "hall_1_connected").config
        #expect(c["availability_topic"] == nil)
        #expect(c["state_topic"] == .string("hall/status"))
        #expect(c["payload_on"] == .string("online") && c["payload_off"] == .string("offline"))
        #expect(c["device_class"] == .string("connectivity"))
        #expect(c["name"] == .string("Connected"))
        #expect(c["unique_id"] == .string("pushbridge:Hall-1:connected"))
    }

    @Test func counterSensorsReadTheStatsTopic() throws {
        let entities = try Self.builder().entities(routes: ["doorbell"])
        let c = try Self.entity(entities, "hall_1_doorbell_suppressed").config
        #expect(c["state_topic"] == .string("pushbridge/stats"))
        #expect(c["value_template"] == .string("{{ (value_json.routes.get('doorbell') or {}).get('suppressed', 0) }}"))
        #expect(c["state_class"] == .string("total_increasing"))
        #expect(c["unit_of_measurement"] == .string("messages"))
        #expect(c["name"] == .string("doorbell suppressed"))
        #expect(c["unique_id"] == .string("pushbridge:Hall-1:route:doorbell:suppressed"))
        #expect(c["entity_category"] == nil)
    }

    @Test func diagnosticSensors() throws {
        let entities = try Self.builder().entities(routes: [])
        let inFlight = try Self.entity(entities, "hall_1_in_flight").config
        #expect(inFlight["entity_category"] == .string("diagnostic"))
        #expect(inFlight["value_template"] == .string("{{ value_json.in_flight }}"))
        #expect(inFlight["state_class"] == .string("measurement"))
        let latency = try Self.entity(entities, "hall_1_latency_p99").config
        #expect(latency["entity_category"] == .string("diagnostic"))
        #expect(latency["value_template"] == .string("{{ value_json.latency_ms.p99 }}"))
        #expect(latency["unit_of_measurement"] == .string("ms"))
        #expect(latency["device_class"] == .string("duration"))
    }

    @Test func eventAndNotifyEntities() throws {
        let b = try Self.builder(ha: "{device_name: Hall, notify_topic: hall/notify}")
        let entities = b.entities(routes: ["doorbell"])
        let event = try Self.entity(entities, "hall_1_doorbell").config
        #expect(event["state_topic"] == .string("pushbridge/hall_1/event/doorbell"))
        #expect(event["event_types"] == .array([.string("delivered")]))
        #expect(event["name"] == .string("doorbell"))
        #expect(event["unique_id"] == .string("pushbridge:Hall-1:route:doorbell:event"))
        #expect(b.eventTopic(route: "doorbell") == "pushbridge/hall_1/event/doorbell")
        let notify = try Self.entity(entities, "hall_1_notify").config
        #expect(notify["command_topic"] == .string("hall/notify"))
        #expect(notify["qos"] == .int(1) && notify["retain"] == .bool(false))
    }

    @Test func idsAreStableAndDependOnlyOnClientIDAndRouteName() throws {
        let a = try Self.builder().entities(routes: ["doorbell", "Front Door"])
        let b = try Self.builder().entities(routes: ["Front Door", "new", "doorbell"])
        let ids = { (list: [DiscoveryEntity], route: String) in list.filter { $0.route == route }.map(\.config) }
        #expect(ids(a, "doorbell") == ids(b, "doorbell"))
        #expect(ids(a, "Front Door") == ids(b, "Front Door"))
    }

    @Test func routeNamesAreQuotedForJinja() throws {
        let entities = try Self.builder().entities(routes: ["it's \\ ok ü"])
        let c = try #require(entities.first { $0.route != nil }).config
        #expect(c["value_template"] == .string("{{ (value_json.routes.get('it\\'s \\\\ ok \\u00fc') or {}).get('received', 0) }}"))
        #expect(JinjaText.literal("😀") == "'\\U0001f600'")
        #expect(JinjaText.literal("a\nb") == "'a\\u000ab'")
        #expect(JinjaText.literal("{{ x }}") == "'\\u007b\\u007b x \\u007d\\u007d'")
    }
}
