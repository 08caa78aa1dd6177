import Foundation
import Testing
@testable import PushBridge

/// `ReusedProperties`: one property list for QoS>0 publishes while their user properties repeat.
@Suite struct ReusedPropertiesTests {
    @Test func aListIsReusedOnlyForTheSameProperties() throws {
        var reused = ReusedProperties()
        let hop = [(name: "hop", value: "pushbridge")]
        let first = try reused.list(for: hop)
        #expect(try reused.list(for: hop) === first)
        #expect(try reused.list(for: [(name: "hop", value: "pushbridge")]) === first)
        let other = try reused.list(for: [(name: "hop", value: "other")])
        #expect(other !== first)
        let two = try reused.list(for: hop + [(name: "k", value: "v")])
        #expect(two !== other)
        let reordered = try reused.list(for: [(name: "k", value: "v")] + hop)
        #expect(reordered !== two)
        #expect(try reused.list(for: [(name: "k", value: "v")] + hop) === reordered)
    }

    /// Through a real broker: each QoS 1 message carries its own user properties, whether the
    /// list was reused or rebuilt.
    @Test func eachPublishCarriesItsOwnProperties() async throws {
        let broker = try TestBroker()
        let topic = uniqueName("reused")
        let sub = try await TestClient.connected(to: broker, subscriptions: [MQTTSubscription(filter: topic, qos: 2)])
        let pub = try await TestClient.connected(to: broker)
        let sets: [[(name: String, value: String)]] = [
            [("hop", "a")], [("hop", "a")], [("hop", "b")], [("hop", "a"), ("k", "1")], [("hop", "a")], [],
        ]
        for (i, props) in sets.enumerated() {
            try pub.publish(topic, "\(i)", qos: i % 2 + 1, userProperties: props)
        }
        // QoS 1 and 2 may arrive in either order: matched by payload.
        let got = try await sub.waitForMessages(count: sets.count)
        #expect(got.count == sets.count)
        for (i, props) in sets.enumerated() {
            let m = try #require(got.first { $0.payload == Array("\(i)".utf8) }, "message \(i)")
            #expect(m.userProperties.map(\.name) == props.map(\.name), "message \(i)")
            #expect(m.userProperties.map(\.value) == props.map(\.value), "message \(i)")
        }
        try await pub.waitUntilAcknowledged()
    }
}
