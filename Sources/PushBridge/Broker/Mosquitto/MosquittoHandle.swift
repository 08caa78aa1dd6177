import CMosquitto
import Foundation

/// Owns one libmosquitto client (`struct mosquitto *`) and destroys it in `deinit`.
///
/// `@unchecked Sendable`: the pointer never changes, and it is used from two threads
/// only through libmosquitto calls that the library makes safe for threaded clients
/// (`mosquitto_threaded_set(true)`): publish, subscribe, unsubscribe and disconnect
/// take the library's own mutexes; connect and loop run only on our network thread.
final class MosquittoHandle: @unchecked Sendable {
    let raw: OpaquePointer
    /// The muted write end of libmosquitto's wake-up socket pair, or -1.
    let mutedWakeFD: Int32

    /// A new client for `clientID`, with no `userdata` (the network thread sets it while it
    /// runs, `ClientLoop`).
    ///
    /// `buffers`: the client runs on our own loop, which never reads libmosquitto's wake-up
    /// socket pair; its one-byte write per queued packet is then answered without a system
    /// call (SocketBufferHooks), until `mosquitto_destroy` closes the pair.
    init(clientID: String, cleanStart: Bool, buffers: SocketBufferHooks? = nil) throws(MQTTError) {
        MosquittoHandle.initializeLibrary
        guard !clientID.isEmpty else { throw .invalidOption("client id must not be empty") }
        buffers?.captureBegin()
        let made = mosquitto_new(clientID, cleanStart, nil)
        let writeEnd = buffers?.captureEnd() ?? -1
        mutedWakeFD = made != nil && writeEnd >= 0 && buffers?.mute(writeEnd) == 0 ? writeEnd : -1
        guard let raw = made else {
            // mosquitto_new sets errno: EINVAL for bad arguments, ENOMEM otherwise.
            throw .invalidOption("cannot create client '\(clientID)': \(String(cString: strerror(errno)))")
        }
        self.raw = raw
    }

    deinit {
        mosquitto_destroy(raw)
    }

    /// `mosquitto_lib_init`, once per process (never cleaned up: other clients may live on).
    private static let initializeLibrary: Void = {
        _ = mosquitto_lib_init()
    }()

    /// Sets an integer option, naming it in the error.
    func setOption(_ option: mosq_opt_t, _ value: Int, name: String) throws(MQTTError) {
        guard let v = Int32(exactly: value) else { throw .invalidOption("\(name) = \(value)") }
        do { try MQTTError.check(mosquitto_int_option(raw, option, v)) } catch {
            throw .invalidOption("\(name) = \(value): \(error)")
        }
    }

    /// Before each connect (network thread): our send maximum again. A CONNACK's Receive Maximum
    /// replaces it (lib/handle_connack.c), and libmosquitto keeps that for the next connection,
    /// whose broker may state none: then ours applies, not the last broker's.
    func restoreSendMaximum(_ options: MQTTClientOptions) {
        if let max = options.maxInflight { try? setOption(MOSQ_OPT_SEND_MAXIMUM, max, name: "max inflight") }
    }

    /// Applies everything in `options` that libmosquitto keeps between connections.
    func configure(_ options: MQTTClientOptions) throws(MQTTError) {
        try MQTTError.check(mosquitto_threaded_set(raw, true))
        let version = options.protocolVersion == .v5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311
        try setOption(MOSQ_OPT_PROTOCOL_VERSION, Int(version), name: "protocol version")
        try setOption(MOSQ_OPT_TCP_NODELAY, 1, name: "TCP_NODELAY")
        if let max = options.maxInflight {
            try setOption(MOSQ_OPT_SEND_MAXIMUM, max, name: "max inflight")
        }
        if options.username != nil || options.password != nil {
            do { try MQTTError.check(mosquitto_username_pw_set(raw, options.username, options.password)) } catch {
                throw .invalidOption("username/password: \(error)")
            }
        }
        if let tls = options.tls { try configureTLS(tls) }
        if let will = options.will { try setWill(will) }
    }

    private func configureTLS(_ tls: TLSConfig) throws(MQTTError) {
        for path in [tls.caFile, tls.certFile, tls.keyFile].compactMap({ $0 })
        where !FileManager.default.isReadableFile(atPath: path) {
            throw .invalidOption("TLS file '\(path)' is not readable")
        }
        if (tls.certFile == nil) != (tls.keyFile == nil) {
            throw .invalidOption("TLS cert_file and key_file go together")
        }
        // Without a CA file the system's trust store is used.
        let caPath: String? = tls.caFile == nil ? "/etc/ssl/certs" : nil
        if tls.caFile == nil {
            try setOption(MOSQ_OPT_TLS_USE_OS_CERTS, 1, name: "TLS system CA certificates")
        }
        do {
            try MQTTError.check(mosquitto_tls_set(raw, tls.caFile, caPath, tls.certFile, tls.keyFile, nil))
            // insecure: skip the host name check (the chain is still verified).
            try MQTTError.check(mosquitto_tls_insecure_set(raw, tls.insecure))
        } catch {
            throw .invalidOption("TLS: \(error)")
        }
    }

    private func setWill(_ will: MQTTWill) throws(MQTTError) {
        guard !will.topic.isEmpty, mosquitto_pub_topic_check(will.topic) == MosquittoCode.success.rawValue else {
            throw .invalidTopic(will.topic)
        }
        guard (0...2).contains(will.qos) else { throw .invalidQoS(will.qos) }
        guard let length = Int32(exactly: will.payload.count), length <= MQTTLimits.maxPayload else {
            throw .payloadTooLarge(will.payload.count)
        }
        let rc = will.payload.withUnsafeBytes { bytes in
            mosquitto_will_set(raw, will.topic, length, bytes.baseAddress, Int32(will.qos), will.retain)
        }
        try MQTTError.check(rc)
    }
}

/// MQTT's fixed limits.
enum MQTTLimits {
    /// The largest payload a PUBLISH can carry (remaining length limit).
    static let maxPayload: Int32 = 268_435_455
}

/// A publish's property list, kept while its user properties repeat: libmosquitto copies the
/// list into each QoS>0 message it queues and writes a QoS 0 one into the packet at once
/// (`mosquitto_publish_v5`, lib/actions.c of 2.0.11), so one list serves every publish with
/// the same properties (the display's `hop`) instead of a list built and freed per publish
/// (~1 200 instructions). `TopicAliases` keeps one per topic alias for QoS 0, the client one
/// for QoS>0 (`ClientCore.reusedProperties`).
struct ReusedProperties {
    private var user: [(name: String, value: String)] = []
    private var list: PropertyList?

    /// The list for `userProperties` and, when not 0, the Topic Alias `alias`; built only when
    /// they differ from the last call's (a caller keeps one value per alias).
    mutating func list(for userProperties: [(name: String, value: String)], alias: UInt16 = 0) throws(MQTTError) -> PropertyList {
        if let list, user.elementsEqual(userProperties, by: { $0 == $1 }) { return list }
        let made = PropertyList()
        for (name, value) in userProperties { try made.addUserProperty(name: name, value: value) }
        if alias != 0 { try made.addInt16(MQTT_PROP_TOPIC_ALIAS, alias) }
        user = userProperties
        list = made
        return made
    }
}

/// An owned MQTT 5 property list (`mosquitto_property *`), freed in `deinit`.
final class PropertyList {
    private(set) var head: OpaquePointer? = nil

    init() {}

    deinit {
        mosquitto_property_free_all(&head)
    }

    /// Appends a user property (name/value pair).
    func addUserProperty(name: String, value: String) throws(MQTTError) {
        try MQTTError.check(mosquitto_property_add_string_pair(&head, Int32(MQTT_PROP_USER_PROPERTY.rawValue), name, value))
    }

    /// Appends a four-byte integer property such as the Session Expiry Interval.
    func addInt32(_ identifier: mqtt5_property, _ value: UInt32) throws(MQTTError) {
        try MQTTError.check(mosquitto_property_add_int32(&head, Int32(identifier.rawValue), value))
    }

    /// Appends a two-byte integer property such as Receive Maximum.
    func addInt16(_ identifier: mqtt5_property, _ value: UInt16) throws(MQTTError) {
        try MQTTError.check(mosquitto_property_add_int16(&head, Int32(identifier.rawValue), value))
    }

    /// Appends a variable byte integer property such as a Subscription Identifier.
    func addVarint(_ identifier: mqtt5_property, _ value: UInt32) throws(MQTTError) {
        try MQTTError.check(mosquitto_property_add_varint(&head, Int32(identifier.rawValue), value))
    }

    /// What a received list carries for the bridge, in one walk: the user properties in
    /// order, copied out, and the Subscription Identifiers (a message matching several of the
    /// client's subscriptions may carry several).
    static func received(_ list: OpaquePointer?) -> (userProperties: [(name: String, value: String)], subscriptionIdentifiers: [Int]) {
        var user: [(name: String, value: String)] = []
        var ids: [Int] = []
        var p = list
        let userProperty = Int32(MQTT_PROP_USER_PROPERTY.rawValue)
        let subscriptionIdentifier = Int32(MQTT_PROP_SUBSCRIPTION_IDENTIFIER.rawValue)
        while let current = p {
            switch mosquitto_property_identifier(current) {
            case userProperty:
                var name: UnsafeMutablePointer<CChar>? = nil
                var value: UnsafeMutablePointer<CChar>? = nil
                // Reads this very property (skip_first false, and it matches): copies both strings.
                if mosquitto_property_read_string_pair(current, userProperty, &name, &value, false) != nil,
                   let name, let value {
                    user.append((String(cString: name), String(cString: value)))
                }
                free(name)
                free(value)
            case subscriptionIdentifier:
                var value: UInt32 = 0
                if mosquitto_property_read_varint(current, subscriptionIdentifier, &value, false) != nil { ids.append(Int(value)) }
            default:
                break
            }
            p = mosquitto_property_next(current)
        }
        return (user, ids)
    }
}
