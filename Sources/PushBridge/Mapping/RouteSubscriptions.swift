/// What the bridge subscribes to on its intake connection: the routes' filters, Home
/// Assistant's status topic, the acknowledgement topic and the attachments' and lookups' topics, with the rule for the copies that
/// partly overlapping filters bring. The pipeline (which copy to keep) and the composition
/// root (what to ask of the broker) both read it.
enum RouteSubscriptions {
    /// The subscriptions the routes need (deduplicated, `$share/` applied, No Local on MQTT 5).
    ///
    /// A filter that another one covers is left out (`TopicFilterCover`): the broker would
    /// deliver each of its messages once per matching subscription. On MQTT 5, filters that
    /// partly overlap carry Subscription Identifiers, so the second copy can be told apart.
    static func subscriptions(for config: BridgeConfig) -> [MQTTSubscription] {
        plan(for: config).subscriptions
    }

    /// The subscriptions, and on MQTT 5 the rule for the copies that subscriptions which partly
    /// overlap bring (`DuplicateCopies`; `nil` when none overlap).
    static func plan(for config: BridgeConfig) -> (subscriptions: [MQTTSubscription], copies: DuplicateCopies?) {
        var byFilter: [String: MQTTSubscription] = [:]
        var order: [String] = []
        for route in config.routes {
            let filter = route.subscriptionFilter
            let noLocal = config.broker.protocolVersion == .v5 && route.share == nil
            if var existing = byFilter[filter] {
                existing.qos = max(existing.qos, route.qos)
                byFilter[filter] = existing
            } else {
                byFilter[filter] = MQTTSubscription(filter: filter, qos: route.qos, noLocal: noLocal)
                order.append(filter)
            }
        }
        let all = TopicFilterCover.minimal(order.map { byFilter[$0]! }
            + homeAssistantStatus(for: config).filter { byFilter[$0.filter] == nil }
            + (config.conditions.map { [MQTTSubscription(filter: $0.ackTopic, qos: 1, noLocal: false)] } ?? [])
                .filter { byFilter[$0.filter] == nil }
            // The attachments' and the lookups' topics (QoS 0: only the newest payload matters;
            // never shared: every replica needs what its alerts ask for).
            + config.keptTopicFilters.filter { byFilter[$0] == nil }
                .map { MQTTSubscription(filter: $0, qos: 0, noLocal: config.broker.protocolVersion == .v5) }
            // The people's presence topics (QoS 1: an arrival home must not be lost).
            + config.presenceTopicFilters.filter { byFilter[$0] == nil && !config.keptTopicFilters.contains($0) }
                .map { MQTTSubscription(filter: $0, qos: 1, noLocal: config.broker.protocolVersion == .v5) })
        let (subscriptions, copies) = DuplicateCopies.assign(all, v5: config.broker.protocolVersion == .v5)
        return (subscriptions, copies)
    }

    /// The subscription to Home Assistant's status topic (QoS 0: a missed birth message is
    /// covered by the announcement on every connect). None when a route's own (not shared)
    /// subscription already brings the status: two overlapping subscriptions would bring
    /// each message twice.
    static func homeAssistantStatus(for config: BridgeConfig) -> [MQTTSubscription] {
        guard let ha = config.homeAssistant else { return [] }
        if let route = config.homeAssistantStatusRoute, route.share == nil { return [] }
        return [MQTTSubscription(filter: ha.birthTopic, qos: 0, noLocal: config.broker.protocolVersion == .v5)]
    }
}
