/// `homeassistant:` section: MQTT discovery for Home Assistant (docs/configuration.md, "homeassistant").
///
/// Also the naming of everything the bridge announces (ids and topics), so that the loop
/// check here and the announcer in `HomeAssistant/` agree on it.
struct HomeAssistantConfig: Sendable, Equatable {
    /// Where Home Assistant reads discovery configs; its birth message is `<prefix>/status`.
    var discoveryPrefix = "homeassistant"
    /// The device's name in Home Assistant.
    var deviceName = "pushbridge"
    /// Where the notify entity publishes what Home Assistant sends with it.
    var notifyTopic = "pushbridge/notify"

    init() {}

    /// Home Assistant's birth and last-will topic: `online` makes the bridge announce itself again.
    var birthTopic: String { discoveryPrefix + "/status" }

    /// The node id in discovery topics and the prefix of object ids: `broker.client_id` as a slug.
    static func nodeID(clientID: String) -> String {
        let s = slug(clientID)
        return s.isEmpty ? "pushbridge" : s
    }

    /// The id part for a route: its name as a slug (`Front door` → `front_door`).
    static func routeID(_ routeName: String) -> String {
        let s = slug(routeName)
        return s.isEmpty ? "route" : s
    }

    /// The retained discovery config topic of one entity.
    func configTopic(component: String, nodeID: String, objectID: String) -> String {
        "\(discoveryPrefix)/\(component)/\(nodeID)/\(objectID)/config"
    }

    /// The state topic of a route's event entity: each delivered alert of the route is published here.
    static func eventTopic(nodeID: String, routeID: String) -> String {
        "pushbridge/\(nodeID)/event/\(routeID)"
    }

    /// Topic templates (holes stand for any text) covering everything the announcer
    /// publishes, for the loop check: discovery configs and event states.
    func publishedTopicPatterns(clientID: String) -> [(what: String, template: String)] {
        let node = Self.nodeID(clientID: clientID)
        return [
            ("Home Assistant discovery configs", "\(discoveryPrefix)/{{ component }}/\(node)/{{ object_id }}/config"),
            ("Home Assistant events", Self.eventTopic(nodeID: node, routeID: "{{ route }}")),
        ]
    }

    /// Lowercase ASCII letters and digits; every other run of characters becomes one `_`
    /// (Home Assistant accepts `[a-zA-Z0-9_-]` in discovery topics; entity ids want lowercase).
    static func slug(_ text: String) -> String {
        var out: [UInt8] = []
        var pendingUnderscore = false
        for byte in text.utf8 {
            let lower = (byte >= 65 && byte <= 90) ? byte + 32 : byte
            let keep = (lower >= 97 && lower <= 122) || (lower >= 48 && lower <= 57)
            if keep {
                if pendingUnderscore && !out.isEmpty { out.append(UInt8(ascii: "_")) }
                pendingUnderscore = false
                out.append(lower)
            } else {
                pendingUnderscore = true
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension BridgeConfig {
    /// The route that takes the notify entity's messages (first match wins), if any.
    var notifyRoute: RouteConfig? {
        guard let ha = homeAssistant else { return nil }
        return routes.first { TopicFilter.matches(filter: $0.topic, topic: ha.notifyTopic) }
    }

    /// The first route whose filter matches Home Assistant's status topic, if any: such a
    /// route gets the status messages too (after the bridge has answered a birth message).
    var homeAssistantStatusRoute: RouteConfig? {
        guard let ha = homeAssistant else { return nil }
        return routes.first { TopicFilter.matches(filter: $0.topic, topic: ha.birthTopic) }
    }

    /// The `homeassistant:` lines of `pushbridge check`.
    func describeHomeAssistant() -> [String] {
        guard let ha = homeAssistant else { return ["homeassistant: off"] }
        let node = HomeAssistantConfig.nodeID(clientID: broker.clientID)
        let status = homeAssistantStatusRoute.map { "; route '\($0.name)' gets it too" } ?? ""
        var lines = [
            "homeassistant: discovery_prefix=\(ha.discoveryPrefix) device_name=\"\(ha.deviceName)\" node_id=\(node) (listens to \(ha.birthTopic)\(status))",
        ]
        if let route = notifyRoute {
            lines.append("  notify_topic=\(ha.notifyTopic) -> route '\(route.name)'")
        } else {
            lines.append("  notify_topic=\(ha.notifyTopic) -> no route matches it: what Home Assistant sends with the notify entity is unrouted; add a route with topic '\(ha.notifyTopic)'")
        }
        return lines
    }
}
