/// One message kept in the journal: what arrived, the id fixed on arrival, and its place.
struct JournalEntry: Sendable {
    /// The journal's sequence number (arrival order, never reused).
    var seq: Int64
    /// The notification id fixed when the message arrived; replays keep it.
    package var id: String
    /// The message as received (topic, payload, QoS, retain, user properties, arrival time, mid).
    package var message: InboundMessage
}

/// The byte format of a message's MQTT 5 user properties in the journal.
///
/// For each property in order: name length (4 bytes, big-endian), name (UTF-8), value
/// length, value. Names may repeat; order is kept.
enum UserPropertyCoding {
    /// The bytes for `properties`.
    static func encode(_ properties: [(name: String, value: String)]) -> [UInt8] {
        var out: [UInt8] = []
        for (name, value) in properties {
            append(Array(name.utf8), to: &out)
            append(Array(value.utf8), to: &out)
        }
        return out
    }

    /// The properties in `bytes`; `nil` when the bytes are not in this format (torn or foreign).
    static func decode(_ bytes: [UInt8]) -> [(name: String, value: String)]? {
        var out: [(name: String, value: String)] = []
        var i = 0
        func field() -> String? {
            guard bytes.count - i >= 4 else { return nil }
            let n = bytes[i..<i + 4].reduce(0) { $0 << 8 | Int($1) }
            i += 4
            guard bytes.count - i >= n else { return nil }
            defer { i += n }
            return String(decoding: bytes[i..<i + n], as: UTF8.self)
        }
        while i < bytes.count {
            guard let name = field(), let value = field() else { return nil }
            out.append((name, value))
        }
        return out
    }

    private static func append(_ field: [UInt8], to out: inout [UInt8]) {
        let n = UInt32(clamping: field.count)
        out += [UInt8(n >> 24), UInt8(n >> 16 & 0xff), UInt8(n >> 8 & 0xff), UInt8(n & 0xff)]
        out += field
    }
}
