/// A message the bridge publishes: a display message, a dead letter, a status or stats update.
public struct OutboundMessage: Sendable {
    public var topic: String
    public var payload: [UInt8]
    public var qos: Int
    public var retain: Bool
    /// MQTT 5 user properties (dropped on MQTT 3.1.1).
    public var userProperties: [(name: String, value: String)]

    public init(topic: String, payload: [UInt8], qos: Int, retain: Bool,
                userProperties: [(name: String, value: String)] = []) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
        self.userProperties = userProperties
    }

    /// The payload as text, for logs and `try`.
    public var payloadText: String { String(decoding: payload, as: UTF8.self) }
}
