/// A message received from the broker, copied out of libmosquitto's callback.
package struct InboundMessage: Sendable {
    package var topic: String
    package var payload: [UInt8]
    package var qos: Int
    package var retain: Bool
    /// MQTT 5 user properties in the order received (names may repeat).
    package var userProperties: [(name: String, value: String)]
    /// Arrival time, UNIX seconds with fraction.
    package var receivedAt: Double
    /// libmosquitto message id (0 for QoS 0).
    var mid: Int32
    /// MQTT 5 Subscription Identifiers of the subscriptions that brought it (empty when the
    /// client's subscriptions have none).
    var subscriptionIdentifiers: [Int]

    package init(topic: String, payload: [UInt8], qos: Int = 0, retain: Bool = false,
                userProperties: [(name: String, value: String)] = [],
                receivedAt: Double, mid: Int32 = 0, subscriptionIdentifiers: [Int] = []) {
        self.subscriptionIdentifiers = subscriptionIdentifiers
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
        self.userProperties = userProperties
        self.receivedAt = receivedAt
        self.mid = mid
    }

    /// The first user property called `name`.
    package func property(_ name: String) -> String? {
        userProperties.first(where: { $0.name == name })?.value
    }
}
