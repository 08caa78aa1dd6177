import Foundation
import Synchronization

/// The running bridge's side of Home Assistant's MQTT discovery.
///
/// Announces the retained discovery configs on every connect and whenever Home Assistant's
/// birth message (`<prefix>/status` = `online`) arrives, removes the entities of routes a
/// reload dropped (an empty retained config), and publishes each delivered alert to its
/// route's event entity. Everything goes out on the intake connection, untracked by the
/// delivery layer (like the status and stats), with the bridge's hop property on MQTT 5.
final class HomeAssistantLink: Sendable {
    let builder: DiscoveryBuilder
    /// Home Assistant's status topic; the bridge subscribes to it outside the routes.
    let birthTopic: String
    private let hop: [(name: String, value: String)]
    private let logger: BridgeLogger
    /// The broker connection's options (no will, no subscriptions), for the sweep's own.
    private let broker: MQTTClientOptions
    /// Set once the first connection started the sweep for stale configs.
    private let swept = Atomic<Bool>(false)
    /// The entities announced for the routes in effect, and each route's event topic.
    private let state: Mutex<State>

    private struct State {
        var entities: [DiscoveryEntity]
        var eventTopics: [String: String]
        /// A route matches the status topic: its messages go on to the pipeline.
        var statusRouted: Bool
    }

    /// `nil` unless `config` has a `homeassistant:` section. `broker`: the options of a
    /// connection to the broker (`config.broker`'s), which the sweep for stale configs uses.
    init?(config: BridgeConfig, broker: MQTTClientOptions, version: String, hop: (name: String, value: String),
          logger: BridgeLogger) {
        guard let builder = DiscoveryBuilder(config: config, version: version) else { return nil }
        self.builder = builder
        self.birthTopic = builder.homeAssistant.birthTopic
        self.hop = config.broker.protocolVersion == .v5 ? [hop] : []
        self.logger = logger
        self.broker = broker
        self.state = Mutex(Self.state(builder, config: config))
        warnWithoutNotifyRoute(config)
    }

    private func warnWithoutNotifyRoute(_ config: BridgeConfig) {
        guard config.notifyRoute == nil else { return }
        logger.warning("homeassistant: no route matches notify_topic '\(builder.homeAssistant.notifyTopic)': what Home Assistant sends with the notify entity is unrouted")
    }

    private static func state(_ builder: DiscoveryBuilder, config: BridgeConfig) -> State {
        let routes = config.routes.map(\.name)
        var topics: [String: String] = [:]
        for route in routes { topics[route] = builder.eventTopic(route: route) }
        return State(entities: builder.entities(routes: routes), eventTopics: topics,
                     statusRouted: config.homeAssistantStatusRoute != nil)
    }

    /// `true` when `message` is Home Assistant's status and no route takes it: it then never
    /// enters the pipeline nor the counters. `online` announces the bridge again either way.
    func intercept(_ message: InboundMessage, client: MQTTClient?) -> Bool {
        guard message.topic == birthTopic else { return false }
        let text = String(decoding: message.payload, as: UTF8.self)
        if text == "online", let client {
            logger.info("Home Assistant is online (\(birthTopic)): announcing the bridge again")
            announce(client)
        }
        return !state.withLock { $0.statusRouted }
    }

    /// Publishes every discovery config (retained, QoS 1); the first time, also starts the
    /// sweep for stale configs (`sweepOnce`).
    func announce(_ client: MQTTClient) {
        let entities = state.withLock { $0.entities }
        var failed = 0
        for entity in entities where !publish(client, entity.topic, entity.payload, retain: true) { failed += 1 }
        if failed > 0 {
            logger.warning("Home Assistant discovery: \(failed) of \(entities.count) config(s) not published")
        } else {
            logger.debug("Home Assistant discovery: \(entities.count) config(s) published under \(builder.homeAssistant.discoveryPrefix)/")
        }
        sweepOnce(client)
    }

    /// Once per process, after the first announcement: removes the configs the broker still
    /// holds for this node that the current routes do not announce (routes removed while
    /// the bridge was stopped). Runs on a worker thread of its own; never delays the connection.
    private func sweepOnce(_ client: MQTTClient) {
        guard swept.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        let filter = StaleConfigSweep.filter(prefix: builder.homeAssistant.discoveryPrefix, nodeID: builder.nodeID)
        Worker.run(name: "homeassistant sweep") { [self] in
            guard let retained = StaleConfigSweep.retainedConfigs(broker: broker, filter: filter, logger: logger) else {
                logger.debug("Home Assistant: could not read the retained discovery configs under \(filter)")
                return
            }
            let current = Set(state.withLock { $0.entities.map(\.topic) })
            let stale = retained.subtracting(current).sorted()
            for topic in stale { _ = publish(client, topic, [], retain: true) }
            if !stale.isEmpty {
                logger.info("Home Assistant: removed \(stale.count) entit\(stale.count == 1 ? "y" : "ies") no route announces any more")
            }
            logger.debug("Home Assistant: sweep done (\(retained.count) retained config(s), \(stale.count) stale)")
        }
    }

    /// The routes changed (reload): removes the entities of dropped routes from Home
    /// Assistant (empty retained configs), then announces the current set.
    func routesChanged(to config: BridgeConfig, client: MQTTClient?) {
        let next = Self.state(builder, config: config)
        warnWithoutNotifyRoute(config)
        let previous = state.withLock { s in
            let old = s.entities
            s = next
            return old
        }
        guard let client else { return }  // the next connect announces the new set
        let kept = Set(next.entities.map(\.topic))
        let removed = previous.filter { !kept.contains($0.topic) }
        for entity in removed { _ = publish(client, entity.topic, [], retain: true) }
        if !removed.isEmpty {
            let routes = Set(removed.compactMap(\.route)).sorted()
            logger.info("Home Assistant: removed \(removed.count) entit\(removed.count == 1 ? "y" : "ies") of route(s) \(routes.joined(separator: ", "))")
        }
        announce(client)
    }

    /// Publishes a delivered alert to its route's event entity (QoS 1, not retained).
    func delivered(_ decision: Decision, sourceTopic: String, client: MQTTClient?) {
        guard decision.outcome == .delivered, let route = decision.route, let request = decision.request,
              let client else { return }
        let topic = state.withLock { $0.eventTopics[route] } ?? builder.eventTopic(route: route)
        _ = publish(client, topic, AlertEvent.payload(request, route: route, sourceTopic: sourceTopic,
                                                             alertID: decision.conditionEvent?.record.alertID), retain: false)
    }

    /// A condition's transition, fired by its route's event entity.
    func condition(_ event: ConditionEvent, client: MQTTClient?) {
        guard let client else { return }
        let route = event.record.route
        let topic = state.withLock { $0.eventTopics[route] } ?? builder.eventTopic(route: route)
        _ = publish(client, topic, AlertEvent.payload(event), retain: false)
    }

    private func publish(_ client: MQTTClient, _ topic: String, _ payload: [UInt8], retain: Bool) -> Bool {
        do {
            _ = try client.publish(topic: topic, payload: payload, qos: 1, retain: retain, userProperties: hop)
            return true
        } catch {
            logger.debug("Home Assistant: publish to '\(topic)' failed: \(error)")
            return false
        }
    }
}
