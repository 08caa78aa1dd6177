import CMosquitto
import Testing
@testable import PushBridge

/// The QoS 0 PUBLISH packets we encode ourselves (`PublishPacket`) and the alias and limit
/// rules `TopicAliases.publishDirectly` applies to them. The executable sends them to a real
/// broker in `SocketBufferEffectTests`.
@Suite struct PublishPacketTests {
    /// A decoded PUBLISH: what a broker reads back from the bytes.
    struct Decoded: Equatable {
        var retain: Bool
        var topic: [UInt8]
        var alias: UInt16?
        var userProperties: [[UInt8]]  // name, value, name, value, …
        var payload: [UInt8]
    }

    /// Decodes `bytes` as exactly one QoS 0 PUBLISH (MQTT 5 properties when `v5`); `nil` when
    /// they are not one.
    static func decode(_ bytes: [UInt8], v5: Bool) -> Decoded? {
        var at = 0
        func byte() -> UInt8? {
            guard at < bytes.count else { return nil }
            defer { at += 1 }
            return bytes[at]
        }
        func variableInteger() -> Int? {
            var value = 0, shift = 0
            for _ in 0..<4 {
                guard let b = byte() else { return nil }
                value |= Int(b & 0x7F) << shift
                if b & 0x80 == 0 { return value }
                shift += 7
            }
            return nil
        }
        func string() -> [UInt8]? {
            guard let hi = byte(), let lo = byte() else { return nil }
            let n = Int(hi) << 8 | Int(lo)
            guard at + n <= bytes.count else { return nil }
            defer { at += n }
            return Array(bytes[at..<(at + n)])
        }
        guard let first = byte(), first & 0xFE == 0x30, let remaining = variableInteger(),
              at + remaining == bytes.count, let topic = string() else { return nil }
        var decoded = Decoded(retain: first & 1 == 1, topic: topic, alias: nil, userProperties: [], payload: [])
        if v5 {
            guard let length = variableInteger() else { return nil }
            let end = at + length
            while at < end {
                switch byte() {
                case 0x23:
                    guard let hi = byte(), let lo = byte() else { return nil }
                    decoded.alias = UInt16(hi) << 8 | UInt16(lo)
                case 0x26:
                    guard let name = string(), let value = string() else { return nil }
                    decoded.userProperties += [name, value]
                default: return nil
                }
            }
            guard at == end else { return nil }
        }
        decoded.payload = Array(bytes[at...])
        return decoded
    }

    /// The bytes `PublishPacket` writes for these parts.
    static func encode(topic: String, alias: UInt16 = 0, user: [(name: String, value: String)] = [], payload: [UInt8],
                       retain: Bool = false, v5: Bool = true) throws -> [UInt8] {
        let props = try #require(PublishPacket.userPropertyBytes(user))
        let name = Array(topic.utf8)
        let layout = PublishPacket.Layout(topicLength: name.count, alias: alias, userPropertiesLength: props.count,
                                          payloadLength: payload.count, v5: v5)
        let size = try #require(layout.size)
        var out = [UInt8](repeating: 0xEE, count: size + 8)
        let written = name.withUnsafeBufferPointer { t in
            props.withUnsafeBufferPointer { p in
                payload.withUnsafeBytes { body in
                    out.withUnsafeMutableBytes { PublishPacket.write(layout, topic: t, userProperties: p, payload: body, retain: retain, into: $0) }
                }
            }
        }
        #expect(written == size, "the size the layout said")
        #expect(out[size...].allSatisfy { $0 == 0xEE }, "nothing written past it")
        return Array(out[..<size])
    }

    @Test("the bytes of small packets, MQTT 3.1.1 and 5, as the specification lays them out")
    func knownBytes() throws {
        #expect(try Self.encode(topic: "a/b", payload: Array("hi".utf8), v5: false)
                == [0x30, 7, 0, 3, 0x61, 0x2F, 0x62, 0x68, 0x69])
        #expect(try Self.encode(topic: "a/b", payload: [], retain: true, v5: false) == [0x31, 5, 0, 3, 0x61, 0x2F, 0x62])
        #expect(try Self.encode(topic: "t", payload: [1], v5: true) == [0x30, 5, 0, 1, 0x74, 0, 1])
        #expect(try Self.encode(topic: "t", alias: 0x0102, user: [("k", "v")], payload: [9], v5: true)
                == [0x30, 15, 0, 1, 0x74, 10, 0x23, 1, 2, 0x26, 0, 1, 0x6B, 0, 1, 0x76, 9])
        // The alias alone: an empty topic.
        #expect(try Self.encode(topic: "", alias: 3, payload: [7], v5: true) == [0x30, 7, 0, 0, 3, 0x23, 0, 3, 7])
    }

    @Test("remaining lengths across each variable-integer boundary decode to the same message",
          arguments: [0, 1, 100, 118, 119, 120, 16_000, 16_375, 16_376, 16_377, 2_097_140, 2_097_144, 2_097_145])
    func lengths(payloadLength: Int) throws {
        let payload = (0..<payloadLength).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let user = [(name: DisplayRenderer.hopProperty, value: "bridge-1"), (name: "é", value: "✓")]
        for v5 in [false, true] {
            let bytes = try Self.encode(topic: "display/x", alias: v5 ? 9 : 0, user: v5 ? user : [], payload: payload, retain: v5, v5: v5)
            let decoded = try #require(Self.decode(bytes, v5: v5), "\(payloadLength) bytes, v5 \(v5)")
            #expect(decoded.topic == Array("display/x".utf8) && decoded.payload == payload && decoded.retain == v5)
            if v5 {
                #expect(decoded.alias == 9)
                #expect(decoded.userProperties == user.flatMap { [Array($0.name.utf8), Array($0.value.utf8)] })
            }
        }
    }

    @Test("sizes past MQTT's limits are refused; variable integers take 1 to 4 bytes")
    func limits() {
        #expect([0, 127, 128, 16_383, 16_384, 2_097_151, 2_097_152, 268_435_455].map(PublishPacket.variableIntegerSize)
                == [1, 1, 2, 2, 3, 3, 4, 4])
        let largest = PublishPacket.Layout(topicLength: 1, alias: 0, userPropertiesLength: 0,
                                           payloadLength: PublishPacket.maximumRemainingLength - 3, v5: false)
        #expect(largest.size == 1 + 4 + PublishPacket.maximumRemainingLength)
        var over = largest
        over.payloadLength += 1
        #expect(over.size == nil)
        #expect(PublishPacket.Layout(topicLength: 65_536, alias: 0, userPropertiesLength: 0, payloadLength: 0, v5: true).size == nil)
    }

    /// A string of the one scalar `value` (non-characters cannot be written as literals).
    static func scalar(_ value: UInt32) -> String { String(Character(Unicode.Scalar(value)!)) }

    @Test("strings libmosquitto would refuse are not encoded: NUL, control characters, non-characters, too long")
    func invalidStrings() {
        #expect(PublishPacket.userPropertyBytes([("a", "b")]) != nil)
        #expect(PublishPacket.userPropertyBytes([]) == [])
        for bad in ["a\u{0}b", "tab\there", "\u{7F}", Self.scalar(0xFFFF), Self.scalar(0xFDD0), String(repeating: "x", count: 65_536)] {
            #expect(PublishPacket.userPropertyBytes([("name", bad)]) == nil, "\(bad.prefix(8).debugDescription)")
            #expect(PublishPacket.userPropertyBytes([(bad, "value")]) == nil)
        }
    }

    /// Calls `body` with CONNACK properties: Topic Alias Maximum, Maximum Packet Size, Retain Available.
    static func withConnack(aliases: UInt16?, packetSize: UInt32? = nil, retain: Bool? = nil,
                            _ body: (OpaquePointer?) -> Void) {
        var head: OpaquePointer? = nil
        defer { mosquitto_property_free_all(&head) }
        if let aliases { #expect(mosquitto_property_add_int16(&head, Int32(MQTT_PROP_TOPIC_ALIAS_MAXIMUM.rawValue), aliases) == 0) }
        if let packetSize { #expect(mosquitto_property_add_int32(&head, Int32(MQTT_PROP_MAXIMUM_PACKET_SIZE.rawValue), packetSize) == 0) }
        if let retain { #expect(mosquitto_property_add_byte(&head, Int32(MQTT_PROP_RETAIN_AVAILABLE.rawValue), retain ? 1 : 0) == 0) }
        body(head)
    }

    @Test("publishDirectly: nothing before a CONNACK; the topic with a new alias, then the alias alone; reset forgets")
    func directAliases() throws {
        let aliases = TopicAliases(enabled: true, v5: true)
        var sent: [[UInt8]] = []
        let append = { (bytes: UnsafeRawBufferPointer) -> Bool in
            sent.append(Array(bytes))
            return true
        }
        let hop = [(name: "pushbridge-hop", value: "b")]
        #expect(!aliases.publishDirectly(topic: "display/a", payload: [1], retain: false, userProperties: hop, append))
        Self.withConnack(aliases: 1) { aliases.connected(properties: $0) }
        #expect(aliases.publishDirectly(topic: "display/a", payload: [1], retain: false, userProperties: hop, append))
        #expect(aliases.publishDirectly(topic: "display/a", payload: [2], retain: false, userProperties: hop, append))
        #expect(aliases.publishDirectly(topic: "display/b", payload: [3], retain: false, userProperties: [], append))
        let decoded = sent.compactMap { Self.decode($0, v5: true) }
        try #require(decoded.count == 3)
        #expect(decoded[0].topic == Array("display/a".utf8) && decoded[0].alias == 1 && decoded[0].payload == [1])
        #expect(decoded[1].topic.isEmpty && decoded[1].alias == 1 && decoded[1].payload == [2])
        #expect(decoded[0].userProperties == [Array("pushbridge-hop".utf8), [0x62]] && decoded[1].userProperties == decoded[0].userProperties)
        #expect(decoded[2].topic == Array("display/b".utf8) && decoded[2].alias == nil && decoded[2].userProperties.isEmpty,
                "past the broker's maximum: the topic every time")
        #expect(aliases.directPackets == 3 && aliases.establishedCount == 1)
        aliases.reset()
        #expect(!aliases.publishDirectly(topic: "display/a", payload: [4], retain: false, userProperties: hop, append))
        #expect(sent.count == 3 && aliases.establishedCount == 0)
    }

    @Test("publishDirectly refuses, changing nothing: a refused append, wildcards, bad UTF-8, past Maximum Packet Size; retain off when unavailable")
    func directRefusals() throws {
        let aliases = TopicAliases(enabled: true, v5: true)
        var sent: [[UInt8]] = []
        var accept = false
        let append = { (bytes: UnsafeRawBufferPointer) -> Bool in
            guard accept else { return false }
            sent.append(Array(bytes))
            return true
        }
        Self.withConnack(aliases: 5, packetSize: 64, retain: false) { aliases.connected(properties: $0) }
        #expect(!aliases.publishDirectly(topic: "display/a", payload: [1], retain: true, userProperties: [], append))
        #expect(aliases.establishedCount == 0, "a refused append sets up no alias")
        accept = true
        for topic in ["display/+", "display/#", "", "a\u{0}b", "bad" + Self.scalar(0xFFFE)] {
            #expect(!aliases.publishDirectly(topic: topic, payload: [1], retain: false, userProperties: [], append), "\(topic.debugDescription)")
        }
        #expect(!aliases.publishDirectly(topic: "display/a", payload: [UInt8](repeating: 0, count: 64), retain: false,
                                         userProperties: [], append), "past the Maximum Packet Size")
        #expect(!aliases.publishDirectly(topic: "display/a", payload: [1], retain: false, userProperties: [("k", "\u{1}")], append))
        #expect(sent.isEmpty && aliases.directPackets == 0 && aliases.establishedCount == 0)
        #expect(aliases.publishDirectly(topic: "display/a", payload: [1], retain: true, userProperties: [], append))
        let decoded = try #require(sent.first.flatMap { Self.decode($0, v5: true) })
        #expect(!decoded.retain, "the broker has no retained messages: the flag is cleared, as libmosquitto does")
        #expect(decoded.alias == 1 && sent[0].count <= 64)
    }

    @Test("MQTT 3.1.1: no properties, no aliases")
    func directOn311() throws {
        let aliases = TopicAliases(enabled: true, v5: false)
        var sent: [[UInt8]] = []
        aliases.connected(properties: nil)
        #expect(aliases.publishDirectly(topic: "display/a", payload: [1, 2], retain: true, userProperties: []) { bytes in
            sent.append(Array(bytes))
            return true
        })
        #expect(sent == [[0x31, 13, 0, 9] + Array("display/a".utf8) + [1, 2]])
    }
}

/// The topic → alias table of one connection (`AliasTable`).
@Suite struct AliasTableTests {
    @Test("lookups by the topic's bytes; at most the limit; forgotten on reset")
    func table() {
        var table = AliasTable()
        #expect(table["a"] == nil && table.count == 0)
        let topics = (0..<TopicAliases.limit).map { "display/room-\($0)/sensor" }
        for (i, topic) in topics.enumerated() { table[topic] = UInt16(i + 1) }
        #expect(table.count == TopicAliases.limit)
        #expect(topics.enumerated().allSatisfy { table[$0.element] == UInt16($0.offset + 1) })
        table["one/more"] = 9
        #expect(table["one/more"] == nil && table.count == TopicAliases.limit, "past the limit: not kept")
        table[topics[3]] = 77  // a topic held already may change
        #expect(table[topics[3]] == 77 && table.count == TopicAliases.limit)
        table.removeAll()
        #expect(table.count == 0 && table[topics[0]] == nil)
        // Canonically equivalent spellings are two topics (MQTT compares bytes).
        table["caf\u{E9}"] = 1
        table["cafe\u{301}"] = 2
        #expect(table["caf\u{E9}"] == 1 && table["cafe\u{301}"] == 2 && table.count == 2)
        table[""] = 5
        #expect(table[""] == 5)
    }
}
