import CMosquitto
import Synchronization

/// MQTT 5 topic aliases on our QoS 0 publishes: the first publish of a topic on a connection
/// carries the topic and an alias, the next ones the alias alone (an empty topic), within the
/// broker's Topic Alias Maximum from this connection's CONNACK. The broker resolves the alias,
/// so a subscriber receives the full topic and the same bytes.
///
/// Why QoS 0 only: libmosquitto 2.0.11 keeps a QoS 1 or 2 message as it was published
/// (`mosquitto_publish_v5` stores a NULL topic and the alias property) and sends that again
/// after a reconnect (`message__retry_check` at CONNACK), where the broker knows no alias
/// yet: it disconnects with 0x94 (Topic Alias Invalid) and the message is resent again, for
/// ever. A QoS 0 packet is never resent: the next connect drops whatever the old connection
/// had not written (`packet__cleanup_all` before the new socket).
///
/// Why one lock around the decision and the publish: `reset()` runs on the network thread
/// before each connect, so a publish either queues its packet before the reset (and the
/// connect drops it with the old connection) or decides after it (and sends the full topic
/// until the new CONNACK arrives). An alias-only packet can never reach a new connection.
///
/// The property lists are kept per alias and reused while the user properties are the same
/// (the display's `hop` property is the same on every message): no list is built per publish.
final class TopicAliases: Sendable {
    /// Most aliases we use on one connection, whatever the broker allows (memory bound).
    static let limit = 256
    /// Topics this short or shorter are not worth an alias (the property costs 3 bytes).
    static let shortestTopic = 4

    private let state = Mutex(State())
    /// `false` on MQTT 3.1.1 or when `MQTTClientOptions.topicAliases` is off: every topic is sent.
    let enabled: Bool

    init(enabled: Bool) {
        self.enabled = enabled
    }

    /// Forgets every alias; none is used until the next CONNACK. Called on the network thread
    /// before each connect.
    func reset() {
        state.withLock { $0.reset(maximum: 0) }
    }

    /// A CONNACK was accepted: aliases 1...`maximum` (the broker's Topic Alias Maximum, read
    /// from the CONNACK's `properties`; absent means none) may be used on this connection.
    func connected(properties: OpaquePointer?) {
        var maximum: UInt16 = 0
        if enabled {
            _ = mosquitto_property_read_int16(properties, Int32(MQTT_PROP_TOPIC_ALIAS_MAXIMUM.rawValue), &maximum, false)
        }
        state.withLock { $0.reset(maximum: min(Int(maximum), Self.limit)) }
    }

    /// Aliases established on the current connection (tests, and the bench's figures).
    var establishedCount: Int { state.withLock { $0.aliases.count } }

    /// Publishes a QoS 0 message through `send(topic, properties)`: `topic` is `nil` when the
    /// alias alone names it; `properties` holds the user properties and the alias, if any.
    func publish(topic: String, userProperties: [(name: String, value: String)],
                 _ send: (String?, PropertyList?) -> MosquittoCode) throws(MQTTError) -> MosquittoCode {
        try state.withLock { s throws(MQTTError) -> MosquittoCode in
            var alias: UInt16 = 0
            var known = false
            if enabled, s.maximum > 0, topic.utf8.count >= Self.shortestTopic {
                if let a = s.aliases[topic] {
                    alias = a
                    known = true
                } else if s.aliases.count < s.maximum {
                    alias = UInt16(s.aliases.count + 1)
                }
            }
            let list = try s.properties(alias: alias, userProperties: userProperties)
            let rc = send(known ? nil : topic, list)
            if alias != 0, !known, rc.isSuccess { s.aliases[topic] = alias }
            return rc
        }
    }

    private struct State: ~Copyable {
        var maximum = 0
        /// topic -> alias, for the topics whose topic + alias publish was queued on this connection.
        var aliases: [String: UInt16] = [:]
        /// The property list last used with each alias, at the alias's position (0: none); an
        /// array, not a dictionary: aliases are 0...`TopicAliases.limit`, and an index costs
        /// nothing where a hash of the alias cost ~200 instructions per publish.
        var lists: [ReusedProperties] = []

        mutating func reset(maximum: Int) {
            self.maximum = maximum
            aliases.removeAll(keepingCapacity: true)
        }

        /// The list for `alias` and `userProperties`, built only when they changed; `nil` for neither.
        mutating func properties(alias: UInt16, userProperties: [(name: String, value: String)])
            throws(MQTTError) -> PropertyList? {
            if alias == 0, userProperties.isEmpty { return nil }
            let i = Int(alias)
            if i >= lists.count { lists.append(contentsOf: repeatElement(ReusedProperties(), count: i + 1 - lists.count)) }
            return try lists[i].list(for: userProperties, alias: alias)
        }
    }
}
