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
    /// MQTT 5: packets we encode ourselves carry properties (`PublishPacket`).
    let v5: Bool
    /// QoS 0 packets encoded by us and added to the network thread's write-behind (`publishDirectly`).
    private let direct = Atomic<UInt>(0)

    init(enabled: Bool, v5: Bool = true) {
        self.enabled = enabled && v5
        self.v5 = v5
    }

    /// Forgets every alias; none is used until the next CONNACK, and no packet is encoded
    /// by us until then. Called on the network thread before each connect.
    func reset() {
        state.withLock { $0.reset(maximum: 0) }
    }

    /// A CONNACK was accepted: aliases 1...`maximum` (the broker's Topic Alias Maximum, read
    /// from the CONNACK's `properties`; absent means none) may be used on this connection. Its
    /// Maximum Packet Size and Retain Available bound the packets we encode ourselves, as
    /// libmosquitto's own checks bound its packets.
    func connected(properties: OpaquePointer?) {
        var maximum: UInt16 = 0
        var packetSize: UInt32 = 0
        var retain: UInt8 = 1
        if enabled {
            _ = mosquitto_property_read_int16(properties, Int32(MQTT_PROP_TOPIC_ALIAS_MAXIMUM.rawValue), &maximum, false)
        }
        if v5 {
            _ = mosquitto_property_read_int32(properties, Int32(MQTT_PROP_MAXIMUM_PACKET_SIZE.rawValue), &packetSize, false)
            _ = mosquitto_property_read_byte(properties, Int32(MQTT_PROP_RETAIN_AVAILABLE.rawValue), &retain, false)
        }
        state.withLock { s in
            s.reset(maximum: min(Int(maximum), Self.limit))
            s.limits = ConnectionLimits(maximumPacketSize: Int(packetSize), retainAvailable: retain != 0)
        }
    }

    /// QoS 0 packets encoded by us so far, over all connections (the log line at stop, tests).
    var directPackets: UInt { direct.load(ordering: .relaxed) }

    /// Aliases established on the current connection (tests, and the bench's figures).
    var establishedCount: Int { state.withLock { $0.aliases.count } }

    /// Publishes a QoS 0 message through `send(topic, properties)`: `topic` is `nil` when the
    /// alias alone names it; `properties` holds the user properties and the alias, if any.
    func publish(topic: String, userProperties: [(name: String, value: String)],
                 _ send: (String?, PropertyList?) -> MosquittoCode) throws(MQTTError) -> MosquittoCode {
        try state.withLock { s throws(MQTTError) -> MosquittoCode in
            let (alias, known) = s.alias(for: topic, enabled: enabled)
            let list = try s.properties(alias: alias, userProperties: userProperties)
            let rc = send(known ? nil : topic, list)
            if alias != 0, !known, rc.isSuccess { s.aliases[topic] = alias }
            return rc
        }
    }

    /// Writes a QoS 0 PUBLISH we encode ourselves (`PublishPacket`) with `append`, which adds
    /// the bytes to the network thread's write-behind (`false`: not added). Returns `false`,
    /// having changed nothing, when the connection has no CONNACK yet, the packet is past the
    /// broker's Maximum Packet Size, the topic or a user property is not one libmosquitto would
    /// send, or `append` refused: the caller then publishes through libmosquitto, which
    /// reports what is wrong. The same alias rules as `publish`; the caller makes sure that
    /// libmosquitto has nothing queued, so that the packet keeps its place in the stream.
    func publishDirectly(topic: String, payload: [UInt8], retain: Bool, userProperties: [(name: String, value: String)],
                         _ append: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        let written = state.withLock { s -> Bool in
            guard let limits = s.limits else { return false }
            let (alias, known) = s.alias(for: topic, enabled: enabled)
            guard let properties = s.encodedUserProperties(userProperties) else { return false }
            let sent = topic.utf8.withContiguousStorageIfAvailable { name -> Bool in
                // A topic named in the packet is checked as libmosquitto checks it (an alias alone
                // stands for one that was).
                if !known {
                    guard !name.isEmpty, PublishPacket.isString(name),
                          name.withMemoryRebound(to: CChar.self, { mosquitto_pub_topic_check2($0.baseAddress, $0.count) })
                            == MosquittoCode.success.rawValue else { return false }
                }
                let layout = PublishPacket.Layout(topicLength: known ? 0 : name.count, alias: alias,
                                                  userPropertiesLength: properties.count, payloadLength: payload.count, v5: v5)
                guard let size = layout.size, limits.maximumPacketSize == 0 || size <= limits.maximumPacketSize else { return false }
                let topicBytes = known ? UnsafeBufferPointer(rebasing: name[..<0]) : name
                return properties.withUnsafeBufferPointer { props in
                    payload.withUnsafeBytes { body in
                        func encode(_ out: UnsafeMutableRawBufferPointer) -> Bool {
                            let n = PublishPacket.write(layout, topic: topicBytes, userProperties: props, payload: body,
                                                        retain: retain && limits.retainAvailable, into: out)
                            return append(UnsafeRawBufferPointer(rebasing: out[..<n]))
                        }
                        if size <= 4_096 {
                            return withUnsafeTemporaryAllocation(byteCount: size, alignment: 1, encode)
                        }
                        let heap = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 1)
                        defer { heap.deallocate() }
                        return encode(heap)
                    }
                }
            } ?? false
            if sent, alias != 0, !known { s.aliases[topic] = alias }
            return sent
        }
        if written { direct.add(1, ordering: .relaxed) }
        return written
    }

    /// What the broker's CONNACK allows packets we encode ourselves.
    struct ConnectionLimits {
        /// The Maximum Packet Size in bytes; 0: none given.
        var maximumPacketSize: Int
        var retainAvailable: Bool
    }

    private struct State: ~Copyable {
        /// The current connection's limits; `nil` from before its connect to its CONNACK.
        var limits: ConnectionLimits?
        /// The user properties last encoded for a packet of ours, and their bytes.
        var encoded: (user: [(name: String, value: String)], bytes: [UInt8])?

        /// The MQTT 5 bytes of `userProperties` (the last ones are kept: a display's `hop`
        /// property is the same on every message), or `nil` when one is not a valid string.
        mutating func encodedUserProperties(_ userProperties: [(name: String, value: String)]) -> [UInt8]? {
            if userProperties.isEmpty { return [] }
            if let encoded {
                // The same array (the renderer's one hop list) first: comparing its strings cost
                // ~300 instructions per packet.
                let same = encoded.user.withUnsafeBufferPointer { a in
                    userProperties.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress && a.count == b.count }
                }
                if same || encoded.user.elementsEqual(userProperties, by: { $0 == $1 }) { return encoded.bytes }
            }
            guard let bytes = PublishPacket.userPropertyBytes(userProperties) else { return nil }
            encoded = (userProperties, bytes)
            return bytes
        }

        var maximum = 0

        /// The alias a publish to `topic` uses: `known` when the broker has it already (the alias
        /// alone names the topic), else a new one while there is room (0: none; the topic is sent).
        /// Set up in `aliases` only once its publish was queued or written.
        func alias(for topic: String, enabled: Bool) -> (alias: UInt16, known: Bool) {
            guard enabled, maximum > 0, topic.utf8.count >= TopicAliases.shortestTopic else { return (0, false) }
            if let a = aliases[topic] { return (a, true) }
            return aliases.count < maximum ? (UInt16(aliases.count + 1), false) : (0, false)
        }
        /// topic -> alias, for the topics whose topic + alias publish was queued on this connection.
        var aliases = AliasTable()
        /// The property list last used with each alias, at the alias's position (0: none); an
        /// array, not a dictionary: aliases are 0...`TopicAliases.limit`, and an index costs
        /// nothing where a hash of the alias cost ~200 instructions per publish.
        var lists: [ReusedProperties] = []

        mutating func reset(maximum: Int) {
            self.maximum = maximum
            aliases.removeAll()
            limits = nil
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

/// Topic → alias for one connection, keyed by the topic's bytes (`ByteKeyIndex`), holding at
/// most `TopicAliases.limit` topics.
struct AliasTable {
    private var index = ByteKeyIndex()
    /// Topics held.
    var count: Int { index.count }

    /// The alias of `topic`; setting one adds the topic (at most `TopicAliases.limit` are kept).
    subscript(topic: String) -> UInt16? {
        get { index.value(for: topic).map { UInt16(truncatingIfNeeded: $0) } }
        set {
            guard let newValue, index.count < TopicAliases.limit || index.value(for: topic) != nil else { return }
            index.set(Int(newValue), for: topic)
        }
    }

    /// Forgets every topic (a new connection); the slots are kept.
    mutating func removeAll() { index.removeAll() }
}
