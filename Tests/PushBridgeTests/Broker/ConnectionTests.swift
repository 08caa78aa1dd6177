import Foundation
import Testing
@testable import PushBridge

/// Connecting, failing, retrying and reconnecting against a real mosquitto.
@Suite struct ConnectionTests {
    @Test(arguments: [MQTTProtocolVersion.v5, .v311])
    func badPasswordIsRetriedUntilTheBrokerAcceptsIt(version: MQTTProtocolVersion) async throws {
        let broker = try TestBroker(.init(users: ["bridge": "right"]))
        let topic = uniqueName("auth")
        var o = TestClient.options(broker, version: version, subscriptions: [MQTTSubscription(filter: topic)])
        o.username = "bridge"
        o.password = "s3cret-wrong"
        let c = try TestClient(options: o)
        c.start()
        // Refused, logged with the CONNACK reason, and retried (several attempts), never connected.
        try await c.waitForEvents("refusal", count: 2) { if case .connectFailed = $0 { true } else { false } }
        #expect(!c.client.isConnected)
        guard case .connectFailed(let reason) = c.events.first else { Issue.record("\(c.events)"); return }
        #expect(reason.contains("CONNACK code"), "\(reason)")
        #expect(reason.lowercased().contains("not authori") || reason.lowercased().contains("password"), "\(reason)")
        #expect(c.logLines.contains { $0.hasPrefix("error cannot connect to 127.0.0.1:\(broker.port)") })
        #expect(!c.logLines.contains { $0.contains("s3cret-wrong") })

        // The operator fixes the password file and restarts the broker: the client gets in.
        try broker.setUsers(["bridge": "s3cret-wrong"])
        try broker.restart()
        try await c.waitUntilSubscribed(timeout: .seconds(15))
        let pub = try TestClient(options: { var p = TestClient.options(broker); p.username = "bridge"; p.password = "s3cret-wrong"; return p }())
        pub.start()
        try await pub.waitUntilConnected()
        try pub.publish(topic, "in")
        _ = try await c.waitForMessages(count: 1)
    }

    @Test func brokerDownAtStartIsWaitedFor() async throws {
        let broker = try TestBroker(start: false)
        let topic = uniqueName("late")
        let c = try TestClient(options: TestClient.options(broker, subscriptions: [MQTTSubscription(filter: topic)]))
        c.start()
        try await c.waitForEvent { if case .connectFailed = $0 { true } else { false } }
        #expect(!c.client.isConnected)
        try broker.start()
        try await c.waitUntilSubscribed()
        #expect(c.events.last == .connected(sessionPresent: false))
    }

    @Test func brokerRestartIsSurvived() async throws {
        let broker = try TestBroker()
        let topic = uniqueName("restart")
        let c = try await TestClient.connected(to: broker, subscriptions: [MQTTSubscription(filter: topic)])
        broker.stop()
        try await c.waitForEvent { if case .disconnected = $0 { true } else { false } }
        #expect(!c.client.isConnected && !c.client.isSubscribed)
        try broker.start()
        try await c.waitForEvents("connection", count: 2) { if case .connected = $0 { true } else { false } }
        try await c.waitUntilSubscribed()
        let pub = try await TestClient.connected(to: broker)
        try pub.publish(topic, "after restart")
        let got = try await c.waitForMessages(count: 1)
        #expect(got[0].payload == Array("after restart".utf8))
    }

    @Test func tlsWithAPrivateCA() async throws {
        let broker = try TestBroker(.init(tls: true))
        let topic = uniqueName("tls")
        var o = TestClient.options(broker, subscriptions: [MQTTSubscription(filter: topic)])
        o.port = try #require(broker.tlsPort)
        var tls = TLSConfig()
        tls.caFile = broker.caFile
        o.tls = tls
        let c = try TestClient(options: o)
        c.start()
        try await c.waitUntilSubscribed()
        try c.publish(topic, "over tls")
        let got = try await c.waitForMessages(count: 1)
        #expect(got[0].payload == Array("over tls".utf8))
    }

    @Test func tlsHostNameCheckAndTheInsecureOption() async throws {
        // The certificate names only "localhost": 127.0.0.1 fails the host name check.
        let broker = try TestBroker(.init(tls: true, tlsNames: ["localhost"]))
        var o = TestClient.options(broker)
        o.port = try #require(broker.tlsPort)
        var tls = TLSConfig()
        tls.caFile = broker.caFile
        o.tls = tls
        let strict = try TestClient(options: o)
        strict.start()
        try await strict.waitForEvent { if case .connectFailed = $0 { true } else { false } }
        #expect(!strict.client.isConnected)
        #expect(strict.logLines.contains { $0.contains("host name verification failed") }, "\(strict.logLines)")
        strict.stop()

        o.clientID = uniqueName("insecure")
        o.tls?.insecure = true
        let lax = try TestClient(options: o)
        lax.start()
        try await lax.waitUntilConnected()
    }

    @Test func tlsWithAnUntrustedCAIsRefusedEvenWhenInsecure() async throws {
        let broker = try TestBroker(.init(tls: true))
        let other = try TestBroker(.init(tls: true), start: false)  // a different CA
        var o = TestClient.options(broker)
        o.port = try #require(broker.tlsPort)
        var tls = TLSConfig()
        tls.caFile = other.caFile
        tls.insecure = true
        o.tls = tls
        let c = try TestClient(options: o)
        c.start()
        try await c.waitForEvents("failed attempt", count: 2) { if case .connectFailed = $0 { true } else { false } }
        #expect(!c.client.isConnected)
    }

    @Test func stopWhileTheBrokerIsDownReturns() async throws {
        let broker = try TestBroker(start: false)
        let c = try TestClient(options: TestClient.options(broker))
        c.start()
        try await c.waitForEvent { if case .connectFailed = $0 { true } else { false } }
        c.stop(flushTimeout: .zero)
        let failures = c.events.count
        try await Task.sleep(for: .milliseconds(600))  // longer than reconnectMax: no attempt after stop
        #expect(c.events.count == failures)
    }
}
