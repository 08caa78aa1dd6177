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

/// Writes JSON objects with keys in a chosen order (the wire formats of SPEC section 8).
struct OrderedJSONWriter {
    private(set) var bytes: [UInt8]
    private var first = true

    init() {
        // One allocation for a typical display message.
        bytes = []
        bytes.reserveCapacity(512)
        bytes.append(UInt8(ascii: "{"))
    }

    private mutating func key(_ k: String) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        JSONValue.writeString(k, into: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    mutating func add(_ k: String, _ v: JSONValue) {
        key(k)
        v.write(into: &bytes)
    }

    mutating func add(_ k: String, _ s: String?) {
        guard let s else { return }
        key(k)
        JSONValue.writeString(s, into: &bytes)
    }

    mutating func finish() -> [UInt8] {
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }
}
