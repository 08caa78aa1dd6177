import Foundation
import Testing
@testable import PushBridge

/// The fallback turn (`libraryTurn`, libmosquitto's `mosquitto_loop`) that a client runs when
/// no eventfd could be made for its `LoopWakeup` (a process out of descriptors at the client's
/// init): forced here with `usesOwnLoop = false`, through a real mosquitto.
@Suite struct LibraryLoopTests {
    /// A started client on the fallback loop, connected and subscribed.
    func fallback(_ broker: TestBroker, version: MQTTProtocolVersion = .v5,
                  subscriptions: [MQTTSubscription] = []) async throws -> TestClient {
        var options = TestClient.options(broker, version: version, subscriptions: subscriptions)
        options.usesOwnLoop = false
        let client = try TestClient(options: options)
        #expect(!client.client.groupsReads)
        client.start()
        try await client.waitUntilSubscribed()
        return client
    }

    @Test(arguments: [MQTTProtocolVersion.v5, .v311], [0, 1, 2])
    func messagesGoBothWaysAtEachQoS(version: MQTTProtocolVersion, qos: Int) async throws {
        let broker = try TestBroker()
        let topic = uniqueName("fallback")
        let sub = try await fallback(broker, version: version, subscriptions: [MQTTSubscription(filter: "\(topic)/#", qos: 2)])
        let pub = try await fallback(broker, version: version)
        // Published from this thread: libmosquitto's socket pair wakes the publisher's select.
        var mids: [Int32] = []
        for i in 0..<20 { mids.append(try pub.publish("\(topic)/\(i)", "m\(i)", qos: qos)) }
        let got = try await sub.waitForMessages(count: 20)
        #expect(Set(got.map(\.topic)) == Set((0..<20).map { "\(topic)/\($0)" }))
        #expect(got.allSatisfy { $0.qos == qos })
        try await eventually("onPublished of every publish") { Set(pub.publishedMids).isSuperset(of: mids) }
        #expect(pub.client.unacknowledgedCount == 0)
    }

    @Test func reconnectsAndResubscribesAfterALostConnection() async throws {
        let broker = try TestBroker()
        let topic = uniqueName("fallback-lost")
        let sub = try await fallback(broker, subscriptions: [MQTTSubscription(filter: topic)])
        sub.client.abortConnectionForTesting()
        try await sub.waitForEvent { if case .disconnected = $0 { true } else { false } }
        try await sub.waitUntilSubscribed()
        let pub = try await TestClient.connected(to: broker)
        try pub.publish(topic, "after")
        let got = try await sub.waitForMessages(count: 1)
        #expect(got[0].payload == Array("after".utf8))
    }

    @Test func stopsWithinTheGrace() async throws {
        let broker = try TestBroker()
        let client = try await fallback(broker)
        let start = ContinuousClock.now
        client.stop(flushTimeout: .seconds(1))
        #expect(ContinuousClock.now - start < .seconds(3))
        #expect(!client.client.isConnected)
    }
}
