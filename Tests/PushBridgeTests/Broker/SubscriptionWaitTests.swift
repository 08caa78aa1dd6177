import Testing
@testable import PushBridge

/// `MQTTClient.waitUntilSubscribed`: woken by the SUBACK, through a real mosquitto.
@Suite struct SubscriptionWaitTests {
    @Test func returnsOnceTheNewSubscriptionsAreAcknowledged() async throws {
        let broker = try TestBroker()
        let c = try await TestClient.connected(to: broker, subscriptions: [MQTTSubscription(filter: uniqueName("a"))])
        let more = [MQTTSubscription(filter: uniqueName("b")), MQTTSubscription(filter: uniqueName("c") + "/#", qos: 1)]
        c.client.setSubscriptions(more)
        #expect(c.client.waitUntilSubscribed(timeout: .seconds(20)))
        #expect(c.client.isSubscribed)
        // Nothing left to wait for: returns at once.
        #expect(c.client.waitUntilSubscribed(timeout: .zero))
        // The new filters deliver.
        let pub = try await TestClient.connected(to: broker)
        try pub.publish(more[0].filter, "x", qos: 0)
        _ = try await c.waitForMessages(count: 1)
    }

    @Test func aClientThatIsNotConnectedDoesNotWait() throws {
        let broker = try TestBroker()
        let c = try TestClient(options: TestClient.options(broker, subscriptions: [MQTTSubscription(filter: "x")]))
        #expect(!c.client.waitUntilSubscribed(timeout: .seconds(20)))
    }
}
