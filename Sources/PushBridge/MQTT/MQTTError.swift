/// An error from the MQTT client: a rejected argument or a libmosquitto failure.
package enum MQTTError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The topic is empty, not UTF-8 or holds a wildcard (`+`, `#`); publishing needs a plain topic.
    case invalidTopic(String)
    /// The subscription filter breaks the `+`/`#` rules.
    case invalidTopicFilter(String)
    /// QoS outside 0...2.
    case invalidQoS(Int)
    /// The payload (its byte count) is over MQTT's 268 435 455 byte limit.
    case payloadTooLarge(Int)
    /// A QoS 0 publish (or another call that needs a live socket) while not connected.
    case notConnected
    /// User properties exist only in MQTT 5; the client speaks 3.1.1.
    case userPropertiesRequireMQTT5
    /// An option libmosquitto refused before any network traffic (names the option).
    case invalidOption(String)
    /// Any other libmosquitto failure, with its code and `mosquitto_strerror` text.
    case library(code: Int32, message: String)

    package var description: String {
        switch self {
        case .invalidTopic(let t): return "invalid topic '\(t)'"
        case .invalidTopicFilter(let f): return "invalid topic filter '\(f)'"
        case .invalidQoS(let q): return "invalid QoS \(q) (must be 0, 1 or 2)"
        case .payloadTooLarge(let n): return "payload of \(n) bytes is too large for MQTT"
        case .notConnected: return "not connected to the broker"
        case .userPropertiesRequireMQTT5: return "user properties need MQTT 5"
        case .invalidOption(let o): return "invalid option: \(o)"
        case .library(let code, let message): return "\(message) (mosquitto error \(code))"
        }
    }
}
