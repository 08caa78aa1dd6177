import CMosquitto

/// A QoS 0 PUBLISH packet as we encode it ourselves (MQTT 3.1.1 section 3.3, MQTT 5 section
/// 3.3), for the publishes the intake connection's own thread makes inside its message
/// callbacks: `TopicAliases.publishDirectly` adds the bytes to that thread's write-behind
/// buffer, where libmosquitto's `mosquitto_publish_v5` would check the same things again,
/// copy the message into a packet it allocates, queue it under two locks and write it at the
/// end of the turn (~3 000 instructions per display message in the QoS 0 flood).
///
/// Layout: the fixed header (`0x30`, the retain bit, the remaining length), the topic name
/// (two length bytes, empty when a topic alias alone names it), on MQTT 5 the properties
/// (their length, then Topic Alias `0x23` and User Properties `0x26`), then the payload.
enum PublishPacket {
    /// The largest remaining length MQTT's four-byte variable integer can carry.
    static let maximumRemainingLength = 268_435_455

    /// Bytes MQTT's variable byte integer takes for `n` (1 to 4).
    static func variableIntegerSize(_ n: Int) -> Int {
        n < 128 ? 1 : n < 16_384 ? 2 : n < 2_097_152 ? 3 : 4
    }

    /// `true` when `bytes` may be an MQTT UTF-8 string: at most 65 535 bytes, and valid as
    /// libmosquitto checks it (well-formed UTF-8 without U+0000, other control characters or
    /// non-characters; `mosquitto_validate_utf8`).
    static func isString(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count <= 65_535 else { return false }
        guard let base = bytes.baseAddress else { return true }
        return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
            mosquitto_validate_utf8($0, Int32(bytes.count))
        } == MosquittoCode.success.rawValue
    }

    /// The MQTT 5 property bytes of `userProperties` (each `0x26`, the name and the value as
    /// length-prefixed strings), or `nil` when a name or value is not a valid MQTT string.
    static func userPropertyBytes(_ userProperties: [(name: String, value: String)]) -> [UInt8]? {
        var bytes: [UInt8] = []
        for (name, value) in userProperties {
            bytes.append(0x26)
            for text in [name, value] {
                let utf8 = Array(text.utf8)
                guard utf8.withUnsafeBufferPointer(isString) else { return nil }
                bytes.append(UInt8(utf8.count >> 8))
                bytes.append(UInt8(utf8.count & 0xFF))
                bytes += utf8
            }
        }
        return bytes
    }

    /// The packet's parts and sizes, for `size` and `write`.
    struct Layout {
        /// Bytes of the topic name (0 when the alias alone names it).
        var topicLength: Int
        /// The Topic Alias, 0 for none (MQTT 5 only).
        var alias: UInt16
        /// Bytes of the encoded user properties (MQTT 5 only).
        var userPropertiesLength: Int
        var payloadLength: Int
        /// MQTT 5 (properties present) or 3.1.1.
        var v5: Bool

        /// The properties' length (MQTT 5): the alias's three bytes and the user properties.
        var propertiesLength: Int { (alias != 0 ? 3 : 0) + userPropertiesLength }

        /// What follows the fixed header.
        var remainingLength: Int {
            var n = 2 + topicLength + payloadLength
            if v5 { n += variableIntegerSize(propertiesLength) + propertiesLength }
            return n
        }

        /// The whole packet's bytes, or `nil` beyond what MQTT can carry.
        var size: Int? {
            let remaining = remainingLength
            guard remaining <= PublishPacket.maximumRemainingLength, topicLength <= 65_535 else { return nil }
            return 1 + variableIntegerSize(remaining) + remaining
        }
    }

    /// Writes the packet `layout` describes into `out` (at least `layout.size` bytes); returns
    /// the bytes written. `topic` and `userProperties` must be `layout`'s lengths.
    static func write(_ layout: Layout, topic: UnsafeBufferPointer<UInt8>, userProperties: UnsafeBufferPointer<UInt8>,
                      payload: UnsafeRawBufferPointer, retain: Bool, into out: UnsafeMutableRawBufferPointer) -> Int {
        var at = 0
        func byte(_ b: UInt8) {
            out[at] = b
            at += 1
        }
        func variableInteger(_ value: Int) {
            var n = value
            repeat {
                let digit = UInt8(n & 0x7F)
                n >>= 7
                byte(n > 0 ? digit | 0x80 : digit)
            } while n > 0
        }
        func bytes(_ source: UnsafeRawBufferPointer) {
            guard source.count > 0 else { return }
            UnsafeMutableRawBufferPointer(rebasing: out[at..<(at + source.count)]).copyMemory(from: source)
            at += source.count
        }
        byte(retain ? 0x31 : 0x30)
        variableInteger(layout.remainingLength)
        byte(UInt8(layout.topicLength >> 8))
        byte(UInt8(layout.topicLength & 0xFF))
        bytes(UnsafeRawBufferPointer(topic))
        if layout.v5 {
            variableInteger(layout.propertiesLength)
            if layout.alias != 0 {
                byte(0x23)
                byte(UInt8(layout.alias >> 8))
                byte(UInt8(layout.alias & 0xFF))
            }
            bytes(UnsafeRawBufferPointer(userProperties))
        }
        bytes(payload)
        return at
    }
}
