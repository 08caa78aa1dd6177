import Foundation
import Testing
@testable import PushBridge

/// Publish/subscribe through a real mosquitto, MQTT 5 and 3.1.1.
@Suite struct PublishSubscribeTests {
    @Test(arguments: [MQTTProtocolVersion.v5, .v311], [0, 1, 2])
    func roundTripAtEachQoS(version: MQTTProtocolVersion, qos: Int) async throws {
        let broker = try TestBroker()
        let topic = uniqueName("t")
        let sub = try await TestClient.connected(to: broker, version: version,
                                                 subscriptions: [MQTTSubscription(filter: "\(topic)/#", qos: 2)])
        let pub = try await TestClient.connected(to: broker, version: version)
        let mid = try pub.publish("\(topic)/a", "hello \(qos)", qos: qos)
        let got = try await sub.waitForMessages(count: 1)
        #expect(got.count == 1)
        #expect(got[0].topic == "\(topic)/a")
        #expect(got[0].payload == Array("hello \(qos)".utf8))
        #expect(got[0].qos == qos)
        #expect(got[0].retain == false)
        #expect((got[0].mid == 0) == (qos == 0))
        #expect(got[0].receivedAt > Date().timeIntervalSince1970 - 60)
        try await pub.waitForPublished("onPublished(\(mid))") { $0.contains(mid) }
    }

    @Test func userPropertiesGoBothWays() async throws {
        let broker = try TestBroker()
        let topic = uniqueName("props")
        let sub = try await TestClient.connected(to: broker, subscriptions: [MQTTSubscription(filter: topic)])
        let pub = try await TestClient.connected(to: broker)
        try pub.publish(topic, "x", userProperties: [("apns-push-type", "alert"), ("k", "1"), ("k", "2"), ("ü", "✓")])
        let got = try await sub.waitForMessages(count: 1)
        #expect(got[0].userProperties.map(\.name) == ["apns-push-type", "k", "k", "ü"])
        #expect(got[0].userProperties.map(\.value) == ["alert", "1", "2", "✓"])
        #expect(got[0].property("k") == "1")

        // And from another implementation: mosquitto_pub with -D publish user-property.
        let r = try await ManagedProcess.run("/usr/bin/mosquitto_pub", [
            "-h", "127.0.0.1", "-p", "\(broker.port)", "-V", "5", "-q", "1", "-t", topic, "-m", "from-cli",
            "-D", "publish", "user-property", "origin", "cli"])
        #expect(r.status == 0, "\(r.stderr)")
        let both = try await sub.waitForMessages(count: 2)
        #expect(both[1].payload == Array("from-cli".utf8))
        #expect(both[1].property("origin") == "cli")
    }

    @Test func userPropertiesAreSeenByAnotherClient() async throws {
        let broker = try TestBroker()
        let topic = uniqueName("props-out")
        let cli = try ManagedProcess("/usr/bin/mosquitto_sub", [
            "-h", "127.0.0.1", "-p", "\(broker.port)", "-V", "5", "-t", topic, "-C", "1", "-F", "%P %p"])
        // -C 1 exits after one message; give the subscriber time to subscribe by publishing until it gets one.
        let pub = try await TestClient.connected(to: broker)
        var exited: ProcessResult? = nil
        for _ in 0..<100 where exited == nil {
            try pub.publish(topic, "body", qos: 0, userProperties: [("hop", "pushbridge")])
            exited = await cli.waitForExit(timeout: .milliseconds(100))
        }
        let result = try #require(exited)
        #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "hop:pushbridge body")
    }

    @Test func binaryAndLargePayloadsArriveIntact() async throws {
        let broker = try TestBroker()
        let topic = uniqueName("bin")
        let sub = try await TestClient.connected(to: broker, subscriptions: [MQTTSubscription(filter: topic)])
        var payload = [UInt8](repeating: 0, count: 2_000_000)
        for i in payload.indices { payload[i] = UInt8(truncatingIfNeeded: i &* 31) }
        payload[0] = 0xFF  // not UTF-8
        try sub.client.publish(topic: topic, payload: payload, qos: 1, retain: false)
        try sub.client.publish(topic: topic, payload: [], qos: 1, retain: false)
        let got = try await sub.waitForMessages(count: 2)
        #expect(got[0].payload == payload)
        #expect(got[1].payload == [])
    }

    @Test func retainedMessagesCarryTheRetainFlag() async throws {
        let broker = try TestBroker()
        let topic = uniqueName("ret")
        let pub = try await TestClient.connected(to: broker)
        try pub.publish(topic, "kept", qos: 1, retain: true)
        pub.stop()
        let sub = try await TestClient.connected(to: broker, subscriptions: [MQTTSubscription(filter: topic)])
        let got = try await sub.waitForMessages(count: 1)
        #expect(got[0].retain)
        #expect(got[0].payload == Array("kept".utf8))
    }

    @Test func noLocalHidesOurOwnPublishesOnMQTT5() async throws {
        let broker = try TestBroker()
        let topic = uniqueName("nolocal")
        let me = try await TestClient.connected(to: broker, subscriptions: [
            MQTTSubscription(filter: "\(topic)/quiet", qos: 1, noLocal: true),
            MQTTSubscription(filter: "\(topic)/loud", qos: 1, noLocal: false)])
        let other = try await TestClient.connected(to: broker, subscriptions: [MQTTSubscription(filter: "\(topic)/#")])
        try me.publish("\(topic)/quiet", "1")
        try me.publish("\(topic)/loud", "2")
        _ = try await other.waitForMessages(count: 2)
        // The loud one came back to us; the quiet one (published before it) never will.
        let mine = try await me.waitForMessages(count: 1)
        #expect(mine.map(\.topic) == ["\(topic)/loud"])
        // Someone else's publish on the quiet topic still reaches us.
        try other.publish("\(topic)/quiet", "3")
        let after = try await me.waitForMessages(count: 2)
        #expect(after.map(\.payload) == [Array("2".utf8), Array("3".utf8)])
    }

    @Test func subscriptionsChangeWhileConnected() async throws {
        let broker = try TestBroker()
        let topic = uniqueName("reload")
        let sub = try await TestClient.connected(to: broker, subscriptions: [MQTTSubscription(filter: "\(topic)/a")])
        sub.client.setSubscriptions([MQTTSubscription(filter: "\(topic)/b")])
        try await sub.waitUntilSubscribed()
        // Subscribed means the UNSUBACK for a is in too.
        let pub = try await TestClient.connected(to: broker)
        try pub.publish("\(topic)/a", "old")
        try pub.publish("\(topic)/b", "new")
        let got = try await sub.waitForMessages(count: 1)
        #expect(got.map(\.topic) == ["\(topic)/b"])
        sub.client.setSubscriptions([MQTTSubscription(filter: "\(topic)/a"), MQTTSubscription(filter: "\(topic)/b")])
        try await sub.waitUntilSubscribed()
        try pub.publish("\(topic)/a", "again")
        let more = try await sub.waitForMessages(count: 2)
        #expect(more.map(\.topic) == ["\(topic)/b", "\(topic)/a"])
    }
}
