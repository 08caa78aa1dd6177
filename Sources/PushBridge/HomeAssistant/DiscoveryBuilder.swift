/// Builds the Home Assistant MQTT discovery configs a bridge announces from its config: pure.
///
/// One device, identified by `broker.client_id`; per bridge a connectivity binary sensor,
/// two diagnostic sensors and the notify entity; per route four counter sensors and an
/// event entity. Object ids (hence entity ids) and unique ids depend only on the client id
/// and the route name, so they are stable across restarts and reloads.
struct DiscoveryBuilder: Sendable {
    let homeAssistant: HomeAssistantConfig
    package let clientID: String
    /// The node id in topics and object ids (`HomeAssistantConfig.nodeID`).
    let nodeID: String
    let statusTopic: String
    package let statsTopic: String
    package let version: String
    /// The `outputs:` names: each gets diagnostic sensors (OutputSensors.swift).
    package let outputs: [String]
    /// The routes with a `condition:` (their event entity fires the lifecycle's events too,
    /// and an active-count sensor is announced).
    let conditionRoutes: Set<String>

    /// `nil` when `config` has no `homeassistant:` section (or no status or stats topic,
    /// which the loader refuses with it).
    init?(config: BridgeConfig, version: String) {
        guard let ha = config.homeAssistant, let status = config.monitoring.statusTopic,
              let stats = config.monitoring.statsTopic else { return nil }
        homeAssistant = ha
        clientID = config.broker.clientID
        nodeID = HomeAssistantConfig.nodeID(clientID: clientID)
        statusTopic = status
        statsTopic = stats
        self.version = version
        outputs = config.outputs.map(\.name)
        conditionRoutes = Set(config.routes.filter { $0.condition != nil }.map(\.name))
    }

    /// Every entity for `routes`: the bridge's own first, each output's, then each route's in order.
    func entities(routes: [String]) -> [DiscoveryEntity] {
        bridgeEntities() + outputs.flatMap(outputEntities) + routes.flatMap(routeEntities)
    }

    /// The state topic of `route`'s event entity.
    func eventTopic(route: String) -> String {
        HomeAssistantConfig.eventTopic(nodeID: nodeID, routeID: HomeAssistantConfig.routeID(route))
    }

    /// The connectivity sensor, the diagnostic sensors and the notify entity.
    func bridgeEntities() -> [DiscoveryEntity] {
        var connected = common(component: "binary_sensor", objectID: "\(nodeID)_connected", name: "Connected",
                               uniqueID: "connected", available: false)
        // No availability: while the bridge is stopped the sensor is off, not unavailable.
        connected.set("state_topic", statusTopic)
        connected.set("payload_on", "online")
        connected.set("payload_off", "offline")
        connected.set("device_class", "connectivity")

        let inFlight = statsSensor(objectID: "\(nodeID)_in_flight", name: "In flight", uniqueID: "in_flight",
                                   template: "{{ value_json.in_flight }}", unit: "messages", stateClass: "measurement",
                                   icon: "mdi:timer-sand", diagnostic: true)
        var latency = statsSensor(objectID: "\(nodeID)_latency_p99", name: "Latency p99", uniqueID: "latency_p99",
                                  template: "{{ value_json.latency_ms.p99 }}", unit: "ms", stateClass: "measurement",
                                  diagnostic: true)
        latency.set("device_class", "duration")
        latency.set("suggested_display_precision", .int(1))

        var notify = common(component: "notify", objectID: "\(nodeID)_notify", name: "Notify", uniqueID: "notify")
        notify.set("command_topic", homeAssistant.notifyTopic)
        notify.set("qos", .int(1))
        notify.set("retain", .bool(false))
        return [connected, inFlight, latency, notify].map { $0.entity(route: nil) }
    }

    /// A route's counter sensors and its event entity.
    func routeEntities(_ route: String) -> [DiscoveryEntity] {
        let id = HomeAssistantConfig.routeID(route)
        var out: [DiscoveryEntity] = []
        for counter in RouteCounter.allCases {
            // A route's zero counters are left out of the stats snapshot: 0 then.
            out.append(statsSensor(
                objectID: "\(nodeID)_\(id)_\(counter.rawValue)", name: "\(route) \(counter.rawValue)",
                uniqueID: "route:\(route):\(counter.rawValue)",
                template: "{{ (value_json.routes.get(\(JinjaText.literal(route))) or {}).get('\(counter.rawValue)', 0) }}",
                unit: "messages", stateClass: "total_increasing", icon: counter.icon).entity(route: route))
        }
        var event = common(component: "event", objectID: "\(nodeID)_\(id)", name: route, uniqueID: "route:\(route):event")
        event.set("state_topic", eventTopic(route: route))
        let types = [AlertEvent.eventType] + (conditionRoutes.contains(route) ? AlertEvent.conditionEventTypes : [])
        event.set("event_types", .array(types.map(JSONValue.string)))
        event.set("qos", .int(1))
        event.set("icon", "mdi:bell-ring")
        out.append(event.entity(route: route))
        if conditionRoutes.contains(route) {
            out.append(statsSensor(
                objectID: "\(nodeID)_\(id)_active_conditions", name: "\(route) active conditions",
                uniqueID: "route:\(route):active_conditions",
                template: "{{ ((value_json.routes.get(\(JinjaText.literal(route))) or {}).get('conditions') or {}).get('active', 0) }}",
                stateClass: "measurement", icon: "mdi:alarm-light").entity(route: route))
        }
        return out
    }

    /// A sensor read from the stats topic through `template`.
    func statsSensor(objectID: String, name: String, uniqueID: String, template: String, unit: String? = nil,
                     stateClass: String, icon: String? = nil, diagnostic: Bool = false) -> Draft {
        var s = common(component: "sensor", objectID: objectID, name: name, uniqueID: uniqueID)
        s.set("state_topic", statsTopic)
        s.set("value_template", template)
        if let unit { s.set("unit_of_measurement", unit) }
        s.set("state_class", stateClass)
        if let icon { s.set("icon", icon) }
        if diagnostic { s.set("entity_category", "diagnostic") }
        return s
    }

    /// The keys every entity has: name, ids, device, origin and (unless `available` is
    /// false) availability from the status topic.
    func common(component: String, objectID: String, name: String, uniqueID: String,
                        available: Bool = true) -> Draft {
        var d = Draft(component: component, objectID: objectID, topic: homeAssistant.configTopic(
            component: component, nodeID: nodeID, objectID: objectID))
        d.set("name", name)
        d.set("object_id", objectID)
        d.set("unique_id", "pushbridge:\(clientID):\(uniqueID)")
        d.set("device", .object([
            "identifiers": .array([.string("pushbridge:\(clientID)")]),
            "name": .string(homeAssistant.deviceName),
            "manufacturer": .string("pushbridge"),
            "model": .string("MQTT notification bridge"),
            "sw_version": .string(version),
        ]))
        d.set("origin", .object(["name": .string("pushbridge"), "sw_version": .string(version)]))
        if available {
            d.set("availability_topic", statusTopic)
            d.set("payload_available", "online")
            d.set("payload_not_available", "offline")
        }
        return d
    }

    /// An entity being built.
    struct Draft {
        var component: String
        var objectID: String
        var topic: String
        var members = JSONObject()

        mutating func set(_ key: String, _ value: JSONValue) { members[key] = value }
        mutating func set(_ key: String, _ value: String) { members[key] = .string(value) }

        func entity(route: String?) -> DiscoveryEntity {
            DiscoveryEntity(component: component, objectID: objectID, route: route, topic: topic,
                            config: .object(members))
        }
    }
}
