import Foundation
import Synchronization
import Testing
@testable import PushBridge

/// Sessions, delivery guarantees and the will, against a real mosquitto.
@Suite struct SessionTests {
    /// Options for a persistent session under a fixed client id.
    func persistent(_ broker: TestBroker, id: String, version: MQTTProtocolVersion, topic: String) -> MQTTClientOptions {
        var o = TestClient.options(broker, version: version, subscriptions: [MQTTSubscription(filter: topic, qos: 1)],
                                   cleanStart: false)
        o.clientID = id
        return o
    }

    @Test(arguments: [MQTTProtocolVersion.v5, .v311])
    func persistentSessionKeepsMessagesWhileAway(version: MQTTProtocolVersion) async throws {
        let broker = try TestBroker()
        let topic = uniqueName("away")
        let id = uniqueName("bridge")
        let first = try TestClient(options: persistent(broker, id: id, version: version, topic: topic))
        first.start()
        try await first.waitUntilSubscribed()
        first.stop()

        let pub = try await TestClient.connected(to: broker)
        for i in 1...3 { try pub.publish(topic, "m\(i)", qos: 1) }
        pub.stop()  // flushes: the broker has all three before we come back

        let second = try TestClient(options: persistent(broker, id: id, version: version, topic: topic))
        second.start()
        let got = try await second.waitForMessages(count: 3)
        #expect(got.map { String(decoding: $0.payload, as: UTF8.self) } == ["m1", "m2", "m3"])
        #expect(second.events.first == .connected(sessionPresent: true))
        // A new client object holds no subscriptions of its own, so it subscribes again; the
        // session's queued messages can arrive before that SUBACK (seen under ThreadSanitizer).
        try await second.waitUntilSubscribed()
    }

    @Test func persistentSessionSurvivesABrokerRestart() async throws {
        let broker = try TestBroker()
        let topic = uniqueName("persist")
        let id = uniqueName("bridge")
        let first = try TestClient(options: persistent(broker, id: id, version: .v5, topic: topic))
        first.start()
        try await first.waitUntilSubscribed()
        first.stop()
        let pub = try await TestClient.connected(to: broker)
        try pub.publish(topic, "kept on disk", qos: 1)
        pub.stop()
        try broker.restart()
        let second = try TestClient(options: persistent(broker, id: id, version: .v5, topic: topic))
        second.start()
        let got = try await second.waitForMessages(count: 1)
        #expect(got[0].payload == Array("kept on disk".utf8))
    }

    @Test func cleanStartWithoutExpiryForgetsTheSession() async throws {
        let broker = try TestBroker()
        let topic = uniqueName("clean")
        let id = uniqueName("bridge")
        var o = persistent(broker, id: id, version: .v5, topic: topic)
        o.sessionExpiry = .zero  // clean_start false alone is not persistent in MQTT 5
        let first = try TestClient(options: o)
        first.start()
        try await first.waitUntilSubscribed()
        first.stop()
        let second = try TestClient(options: o)
        second.start()
        try await second.waitUntilSubscribed()
        #expect(second.events.first == .connected(sessionPresent: false))
    }

    @Test func publishesQueuedOfflineAreSentOnceAndStopFlushesThem() async throws {
        let broker = try TestBroker(start: false)
        let topic = uniqueName("offline")
        let c = try TestClient(options: TestClient.options(broker))
        c.start()
        try await c.waitForEvent { if case .connectFailed = $0 { true } else { false } }
        // Offline QoS 1: queued by libmosquitto, a mid back, no error.
        let mids = try (1...20).map { try c.publish(topic, "q\($0)", qos: 1) }
        #expect(Set(mids).count == 20)
        #expect(c.client.unacknowledgedCount == 20)
        try broker.start()
        try await c.waitUntilConnected()
        c.stop(flushTimeout: .seconds(10))
        #expect(c.client.unacknowledgedCount == 0)
        #expect(Set(c.publishedMids).isSuperset(of: mids))
        #expect(c.publishedMids.count == Set(c.publishedMids).count)  // each acknowledged once
    }

    @Test func stopWaitsForAcknowledgements() async throws {
        let broker = try TestBroker()
        let topic = uniqueName("flush")
        let sub = try await TestClient.connected(to: broker, subscriptions: [MQTTSubscription(filter: topic)])
        let pub = try await TestClient.connected(to: broker)
        for i in 0..<500 { try pub.publish(topic, "\(i)", qos: 1) }
        pub.stop(flushTimeout: .seconds(10))
        #expect(pub.client.unacknowledgedCount == 0)
        #expect(pub.publishedMids.count == 500)
        let got = try await sub.waitForMessages(count: 500)
        #expect(got.count == 500)
    }

    /// The PUBACK of a QoS 1 message leaves only after `onMessage` returns: a connection
    /// that dies inside the callback gets the message again (the journal relies on this).
    @Test func pubackIsWrittenAfterTheCallbackReturns() async throws {
        let broker = try TestBroker()
        let topic = uniqueName("puback")
        var o = persistent(broker, id: uniqueName("bridge"), version: .v5, topic: topic)
        o.keepalive = .seconds(5)
        let seen = Watched(0)
        let connections = Watched(0)
        let holder = ClientHolder()
        let client = try MQTTClient(options: o)
        holder.client = client
        client.start(handlers: MQTTClientHandlers(onMessage: { m in
            let n = seen.update { $0 += 1; return $0 }
            // First delivery: drop the connection from inside the callback, before the PUBACK is written.
            if n == 1 { holder.client?.abortConnectionForTesting() }
        }, onConnection: { e in
            if case .connected = e { connections.update { $0 += 1 } }
        }))
        try await connections.wait(for: "a connection") { $0 >= 1 }
        let subscribed = await TestClient.waitUntilSubscribed(client, timeout: .seconds(10))
        try #require(subscribed, "timed out waiting for the SUBACK")
        let pub = try await TestClient.connected(to: broker)
        try pub.publish(topic, "once", qos: 1)
        try await seen.wait(for: "redelivery, seen \(seen.value)") { $0 >= 2 }
        client.stop(flushTimeout: .zero)
    }

    @Test func willIsPublishedWhenTheConnectionDiesButNotOnCleanStop() async throws {
        let broker = try TestBroker()
        let willTopic = uniqueName("status")
        let watcher = try await TestClient.connected(to: broker, subscriptions: [MQTTSubscription(filter: willTopic)])

        var o = TestClient.options(broker)
        o.will = MQTTWill(topic: willTopic, payload: Array("offline".utf8), qos: 1, retain: false)
        let crashing = try TestClient(options: o)
        crashing.start()
        try await crashing.waitUntilConnected()
        crashing.client.abortConnectionForTesting()  // no DISCONNECT, as after kill -9
        let got = try await watcher.waitForMessages(count: 1)
        #expect(got[0].payload == Array("offline".utf8))
        crashing.stop()

        o.clientID = uniqueName("clean")
        let clean = try TestClient(options: o)
        clean.start()
        try await clean.waitUntilConnected()
        clean.stop()
        // The broker logs the clean disconnect when it handles it; the will would go out then.
        try await eventually("broker saw the clean disconnect") {
            broker.log.contains("Client \(o.clientID) disconnected.")
        }
        let marker = try await TestClient.connected(to: broker)
        try marker.publish(willTopic, "marker")
        let after = try await watcher.waitForMessages(count: 2)
        #expect(after.map { String(decoding: $0.payload, as: UTF8.self) } == ["offline", "marker"])
    }
}

/// A thread-safe counter for callbacks.
final class Counter: Sendable {
    private let count = Mutex(0)
    func increment() -> Int { count.withLock { $0 += 1; return $0 } }
    var value: Int { count.withLock { $0 } }
}

/// Lets a handler reach the client it belongs to (set right after init).
final class ClientHolder: @unchecked Sendable {
    /// Written once before `start()`, read only from callbacks after that.
    weak var client: MQTTClient?
}
