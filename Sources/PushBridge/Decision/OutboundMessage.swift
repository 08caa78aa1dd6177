/// A message the bridge publishes: a display message, a dead letter, a status or stats update.
package struct OutboundMessage: Sendable {
    package var topic: String
    package var payload: [UInt8]
    package var qos: Int
    package var retain: Bool
    /// MQTT 5 user properties (dropped on MQTT 3.1.1).
    package var userProperties: [(name: String, value: String)] = []

    /// The payload as text, for logs and `try`.
    package var payloadText: String { String(decoding: payload, as: UTF8.self) }
}
