import Foundation

/// Reads `homeassistant:` (MQTT discovery for Home Assistant) and checks it against the other sections.
extension ConfigReader {
    static let homeAssistantKeys = ConfigReference.keys(in: "homeassistant")

    /// The section; `nil` when it is not a mapping (reported).
    func readHomeAssistant(_ node: YAMLNode) -> HomeAssistantConfig? {
        guard let f = fields(node, key: "homeassistant", context: "homeassistant", known: Self.homeAssistantKeys) else {
            return nil
        }
        var ha = HomeAssistantConfig()
        if let n = f["discovery_prefix"], let v = string(n, key: "discovery_prefix") {
            if let problem = TopicFilter.validatePublishTopic(v) {
                error("invalid 'discovery_prefix' '\(v)': \(problem)", at: n.mark)
            } else if v.hasSuffix("/") {
                error("'discovery_prefix' must not end with '/', got '\(v)'", at: n.mark)
            } else {
                ha.discoveryPrefix = v
            }
        }
        if let n = f["device_name"], let v = string(n, key: "device_name") {
            if v.trimmingCharacters(in: .whitespaces).isEmpty {
                error("'device_name' must not be empty", at: n.mark)
            } else {
                ha.deviceName = v
            }
        }
        if let n = f["notify_topic"], let v = string(n, key: "notify_topic") {
            if let problem = TopicFilter.validatePublishTopic(v) {
                error("invalid 'notify_topic' '\(v)': \(problem)", at: n.mark)
            } else {
                ha.notifyTopic = v
            }
        }
        return ha
    }
}

extension ConfigAssembly {
    /// What the announcer needs from the other sections: the status topic (availability),
    /// the stats topic (the counters), and one distinct id per route.
    func checkHomeAssistant(_ config: BridgeConfig, at mark: YAMLMark, routeMarks: [YAMLMark]) {
        guard config.homeAssistant != nil else { return }
        if config.monitoring.statusTopic == nil {
            reader.error("'homeassistant' needs 'monitoring.status_topic' (the entities' availability); remove 'status_topic: null'",
                         at: mark)
        }
        if config.monitoring.statsTopic == nil {
            reader.error("'homeassistant' needs 'monitoring.stats_topic' (the counter sensors read it); remove 'stats_topic: null'",
                         at: mark)
        }
        var seen: [String: String] = [:]
        for (route, routeMark) in zip(config.routes, routeMarks) {
            let id = HomeAssistantConfig.routeID(route.name)
            if let first = seen[id] {
                reader.error("routes '\(first)' and '\(route.name)' get the same Home Assistant id '\(id)'; rename one",
                             at: routeMark)
            } else {
                seen[id] = route.name
            }
        }
    }
}
