/// MQTT protocol version used to talk to the broker (`broker.protocol_version`).
package enum MQTTProtocolVersion: String, Sendable {
    /// MQTT 5.
    case v5 = "5"
    /// MQTT 3.1.1.
    case v311 = "3.1.1"
}

/// The client's TLS settings (`broker.tls:`): the files libmosquitto loads.
package struct TLSConfig: Sendable, Equatable {
    /// The CA bundle that verifies the broker; `nil`: the system's (`/etc/ssl/certs`).
    var caFile: String? = nil
    /// The client certificate, with `keyFile` (both or neither).
    var certFile: String? = nil
    /// The client certificate's private key, with `certFile`.
    var keyFile: String? = nil
    /// Skips the check of the broker's host name against its certificate.
    var insecure = false
    init() {}
}

/// Everything `MQTTClient` needs to connect and stay connected.
package struct MQTTClientOptions: Sendable {
    package var host: String = "localhost"
    var port: Int = 1883
    package var clientID: String = "pushbridge"
    var protocolVersion: MQTTProtocolVersion = .v5
    /// Keepalive; libmosquitto needs 0 (off) or at least 5 seconds.
    var keepalive: Duration = .seconds(30)
    /// `false` resumes the broker's session (MQTT 5 also needs `sessionExpiry` > 0).
    package var cleanStart: Bool = false
    /// MQTT 5 Session Expiry Interval, sent on CONNECT (whole seconds).
    package var sessionExpiry: Duration = .seconds(86_400)
    var username: String?
    /// Never logged.
    var password: String?
    package var tls: TLSConfig?
    /// First delay before a reconnect; doubles per failure up to `reconnectMax`.
    var reconnectMin: Duration = .seconds(1)
    var reconnectMax: Duration = .seconds(30)
    package var will: MQTTWill?
    package var subscriptions: [MQTTSubscription] = []
    /// MQTT 5 Receive Maximum sent on CONNECT: QoS>0 messages the broker may have in flight to us.
    var receiveMaximum: Int?
    /// Most QoS>0 publishes of ours in flight at once (libmosquitto's send maximum).
    var maxInflight: Int?
    /// Least severe libmosquitto log line forwarded to `log`; `nil` installs no log
    /// callback at all. libmosquitto formats a debug line for every packet whenever a callback
    /// is installed (`vsnprintf` per message), so on a plain TCP connection the callback is
    /// installed only for `.debug`: there the library's non-debug lines are rare warnings
    /// whose failures also come back as return codes, which are logged. With TLS it is
    /// installed for any level (OpenSSL's errors reach us only as log lines).
    var libraryLogLevel: LogLevel? = .warning
    /// MQTT 5: QoS 0 publishes name a topic by an alias after its first use on a connection,
    /// within the broker's Topic Alias Maximum (`TopicAliases`). Subscribers see no difference.
    var topicAliases = true
    /// For a connection that only publishes (the output connection): while publishes of ours
    /// wait for their acknowledgement, the network thread does not wake for the socket's
    /// PUBACKs alone but reads them when it wakes anyway (to write what another thread
    /// queued) or after this delay at most. One wake-up then serves a batch's writes and the
    /// previous batch's PUBACKs. `nil`: every readable socket wakes the thread (a connection
    /// that receives messages needs that).
    var acknowledgementReadDelay: Duration?
    /// For a connection that others publish on in batches (the output connection): the
    /// thread that ends a batch with `MQTTClient.flushDeferredWake()` writes the batch itself,
    /// through the network thread's write-behind buffer, when that thread is not in a turn,
    /// instead of waking it (`ClientCore.writeQueuedAsGuest`). Plain TCP with the socket buffers
    /// only; otherwise, and whenever the network thread is busy, the thread is woken as before.
    var acceptsGuestWrites = false
    /// For a connection that receives floods (the intake connection): after a turn that read a
    /// batch, the network thread sleeps a little before its next `poll`, so that one turn
    /// serves more packets (`ReadCoalescing`). `nil`: every turn polls at once.
    var readCoalescing: ReadCoalescing?

    /// Options with the documented `broker:` defaults; only the host, port and client id usually change.
    package init(host: String = "localhost", port: Int = 1883, clientID: String = "pushbridge",
                protocolVersion: MQTTProtocolVersion = .v5, keepalive: Duration = .seconds(30),
                cleanStart: Bool = false, sessionExpiry: Duration = .seconds(86_400),
                username: String? = nil, password: String? = nil, tls: TLSConfig? = nil,
                reconnectMin: Duration = .seconds(1), reconnectMax: Duration = .seconds(30),
                will: MQTTWill? = nil, subscriptions: [MQTTSubscription] = [],
                receiveMaximum: Int? = nil, maxInflight: Int? = nil,
                libraryLogLevel: LogLevel? = .warning) {
        self.host = host
        self.port = port
        self.clientID = clientID
        self.protocolVersion = protocolVersion
        self.keepalive = keepalive
        self.cleanStart = cleanStart
        self.sessionExpiry = sessionExpiry
        self.username = username
        self.password = password
        self.tls = tls
        self.reconnectMin = reconnectMin
        self.reconnectMax = reconnectMax
        self.will = will
        self.subscriptions = subscriptions
        self.receiveMaximum = receiveMaximum
        self.maxInflight = maxInflight
        self.libraryLogLevel = libraryLogLevel
    }

    /// `host:port`, for log lines (an IPv6 host in brackets).
    var endpoint: String { HostPort(host: host, port: port).description }
}
