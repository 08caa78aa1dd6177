/// One subscription the client keeps on every connection.
package struct MQTTSubscription: Sendable, Hashable {
    /// The full filter, including a `$share/<group>/` prefix when shared.
    package var filter: String
    /// Requested maximum QoS (0...2).
    package var qos: Int = 1
    /// MQTT 5 No Local: the broker does not send this client its own publishes.
    /// Not allowed on shared subscriptions; ignored on 3.1.1.
    package var noLocal: Bool = false
    /// MQTT 5 Subscription Identifier (1...268 435 455): the broker names it in each message
    /// this subscription brings. `nil`: none (3.1.1 ignores it).
    package var identifier: Int?

    package init(filter: String, qos: Int = 1, noLocal: Bool = false, identifier: Int? = nil) {
        self.filter = filter
        self.qos = qos
        self.noLocal = noLocal
        self.identifier = identifier
    }
}

/// The Last Will the broker publishes when the client vanishes without a DISCONNECT.
package struct MQTTWill: Sendable {
    package var topic: String
    package var payload: [UInt8]
    package var qos: Int = 1
    package var retain: Bool = false
}
