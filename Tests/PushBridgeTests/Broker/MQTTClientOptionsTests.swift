import Testing
@testable import PushBridge

@Suite struct MQTTClientOptionsTests {
    func options(_ change: @Sendable (inout MQTTClientOptions) -> Void = { _ in }) -> MQTTClientOptions {
        var o = MQTTClientOptions(host: "127.0.0.1", port: 1, clientID: uniqueName("offline"))
        change(&o)
        return o
    }

    @Test func fromBrokerConfig() {
        var config = BrokerConfig()
        config.host = "mqtt.example"
        config.clientID = "bridge-1"
        config.protocolVersion = .v311
        config.keepalive = .seconds(12)
        config.cleanStart = true
        config.sessionExpiry = .seconds(60)
        config.username = "u"
        config.password = "p"
        config.reconnectMin = .milliseconds(500)
        config.reconnectMax = .seconds(9)
        let will = MQTTWill(topic: "pushbridge/status", payload: Array("offline".utf8), qos: 1, retain: true)
        let subs = [MQTTSubscription(filter: "a/#", qos: 1, noLocal: true)]
        let o = MQTTClientOptions(config: config, will: will, subscriptions: subs)
        #expect(o.host == "mqtt.example" && o.port == 1883 && o.clientID == "bridge-1")
        #expect(o.protocolVersion == .v311 && o.keepalive == .seconds(12))
        #expect(o.cleanStart && o.sessionExpiry == .seconds(60))
        #expect(o.username == "u" && o.password == "p" && o.tls == nil)
        #expect(o.reconnectMin == .milliseconds(500) && o.reconnectMax == .seconds(9))
        #expect(o.will?.topic == "pushbridge/status" && o.will?.retain == true)
        #expect(o.subscriptions == subs)
        #expect(o.endpoint == "mqtt.example:1883")
    }

    @Test func tlsConfigDefaultsToPort8883() {
        var config = BrokerConfig()
        config.tls = TLSConfig()
        #expect(MQTTClientOptions(config: config, will: nil, subscriptions: []).port == 8883)
        config.port = 18883
        #expect(MQTTClientOptions(config: config, will: nil, subscriptions: []).port == 18883)
    }

    @Test func invalidSubscriptionsAreRejectedAtInit() {
        #expect(throws: MQTTError.invalidTopicFilter("a/#/b")) {
            try MQTTClient(options: options { $0.subscriptions = [MQTTSubscription(filter: "a/#/b")] })
        }
        #expect(throws: MQTTError.invalidTopicFilter("a+")) {
            try MQTTClient(options: options { $0.subscriptions = [MQTTSubscription(filter: "a+")] })
        }
        #expect(throws: MQTTError.invalidQoS(3)) {
            try MQTTClient(options: options { $0.subscriptions = [MQTTSubscription(filter: "a", qos: 3)] })
        }
    }

    static func breaking(_ name: String, _ o: inout MQTTClientOptions) {
        switch name {
        case "keepalive": o.keepalive = .seconds(3)
        case "port": o.port = 0
        case "receive maximum": o.receiveMaximum = 0
        case "client id": o.clientID = ""
        case "TLS file": o.tls = TLSConfig(); o.tls?.caFile = "/nonexistent/ca.crt"
        default: o.tls = TLSConfig(); o.tls?.caFile = "/etc/hostname"; o.tls?.certFile = "/etc/hostname"
        }
    }

    @Test(arguments: ["keepalive", "port", "receive maximum", "client id", "TLS file", "cert without key"])
    func invalidOptionsAreRejected(name: String) {
        do {
            _ = try MQTTClient(options: options { Self.breaking(name, &$0) })
            Issue.record("\(name): accepted")
        } catch {
            guard case .invalidOption = error else { Issue.record("\(name): \(error)"); return }
        }
    }

    @Test func invalidWillIsRejected() {
        #expect(throws: MQTTError.invalidTopic("s/#")) {
            try MQTTClient(options: options { $0.will = MQTTWill(topic: "s/#", payload: []) })
        }
        #expect(throws: MQTTError.invalidQoS(-1)) {
            try MQTTClient(options: options { $0.will = MQTTWill(topic: "s", payload: [], qos: -1) })
        }
    }

    @Test func publishArgumentsAreCheckedBeforeTheNetwork() throws {
        let client = try MQTTClient(options: options())
        #expect(throws: MQTTError.invalidTopic("a/+")) { try client.publish(topic: "a/+", payload: [], qos: 1, retain: false) }
        #expect(throws: MQTTError.invalidTopic("")) { try client.publish(topic: "", payload: [], qos: 1, retain: false) }
        // libmosquitto checks the topic (before it looks at the connection); the refusal is told apart.
        #expect(throws: MQTTError.invalidTopic("a/#")) { try client.publish(topic: "a/#", payload: [1], qos: 0, retain: false) }
        #expect(throws: MQTTError.invalidTopic("a/\u{FFFF}/+")) {
            try client.publish(topic: "a/\u{FFFF}/+", payload: [1], qos: 2, retain: false)
        }
        #expect(throws: MQTTError.invalidQoS(3)) { try client.publish(topic: "a", payload: [], qos: 3, retain: false) }
        #expect(throws: MQTTError.notConnected) { try client.publish(topic: "a", payload: [1], qos: 0, retain: false) }
        // QoS 1 offline is queued by libmosquitto: success, with a mid, counted as unacknowledged.
        let mid = try client.publish(topic: "a", payload: [1], qos: 1, retain: false)
        #expect(mid > 0)
        #expect(client.unacknowledgedCount == 1)
        #expect(!client.isConnected && !client.isSubscribed)
        client.stop(flushTimeout: .zero)
    }

    @Test func userPropertiesNeedMQTT5() throws {
        let client = try MQTTClient(options: options { $0.protocolVersion = .v311 })
        #expect(throws: MQTTError.userPropertiesRequireMQTT5) {
            try client.publish(topic: "a", payload: [], qos: 1, retain: false, userProperties: [("k", "v")])
        }
    }
}
