/// Home Assistant's diagnostic sensors for each output: its
/// pending deliveries, and its delivered and failed counts, read from the stats topic's
/// `outputs` object.
extension DiscoveryBuilder {
    /// The counters an output has a sensor for, with their state classes and icons.
    static let outputCounters: [(key: String, stateClass: String, icon: String)] = [
        ("pending", "measurement", "mdi:tray-full"),
        ("delivered", "total_increasing", "mdi:send-check"),
        ("failed", "total_increasing", "mdi:send-lock"),
    ]

    /// The sensors of output `name`.
    func outputEntities(_ name: String) -> [DiscoveryEntity] {
        let id = HomeAssistantConfig.routeID(name)
        return Self.outputCounters.map { counter in
            statsSensor(objectID: "\(nodeID)_output_\(id)_\(counter.key)", name: "Output \(name) \(counter.key)",
                        uniqueID: "output:\(name):\(counter.key)",
                        template: "{{ ((value_json.outputs or {}).get(\(JinjaText.literal(name))) or {}).get('\(counter.key)', 0) }}",
                        unit: "deliveries", stateClass: counter.stateClass, icon: counter.icon, diagnostic: true).entity(route: nil)
        }
    }
}
