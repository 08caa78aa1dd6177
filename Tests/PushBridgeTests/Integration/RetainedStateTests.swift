import Foundation
import Testing
@testable import PushBridge

/// Retained messages are stored state, not news, on a real mosquitto.
@Suite("Integration: retained state")
struct RetainedStateTests {
    static func routes(_ s: Scenario) -> String {
        """
        entitlements: [com.apple.developer.usernotifications.filtering]
        routes:
          - name: leak
            topic: \(s.ns)/in/#
            alert: {title: "Water leak", body: "{{ levels[2] }}", interruption_level: critical}
        extension:
          filters:
            - name: once
              changed: {key: "{{ topic }}", value: "{{ payload.water_leak }}"}
            - name: leak-only
              suppress: 'payload.water_leak != true'
        """
    }

    @Test("retained state before the start gives no display message, nor after a reconnect; the next live change does")
    func retainedBeforeStart() async throws {
        let s = try await Scenario.start()
        // What Zigbee2MQTT leaves on the broker: the last state of each device, retained.
        try s.observer.publish(s.input("kitchen"), #"{"battery":97,"water_leak":true,"linkquality":120}"#, retain: true)
        try s.observer.publish(s.input("bath"), #"{"battery":88,"water_leak":false}"#, retain: true)
        // clean_start: true, so every connect subscribes anew and the broker replays its store.
        let bridge = try InProcessBridge.start(yaml: s.yaml(Self.routes(s), brokerExtra: "clean_start: true\nsession_expiry: 0"))
        try await s.waitUntilOnline()
        var stats = try await s.waitForStats("2 retained decided") {
            total($0, "received") == 2 && $0["in_flight"] == .int(0)
        }
        #expect(total(stats, "not_displayed") == 2)
        #expect(s.messages(on: s.display("kitchen")).isEmpty, "a retained leak is not news")

        // A reconnect (the broker restarts, keeping its retained store) replays them again.
        try s.restartBroker()
        try await s.waitUntilOnline(times: 2, timeout: .seconds(30))
        stats = try await s.waitForStats("4 retained decided", timeout: .seconds(20)) {
            total($0, "received") == 4 && $0["in_flight"] == .int(0)
        }
        #expect(total(stats, "not_displayed") == 4 && total(stats, "delivered") == 0)

        // Live reports: the same state again (Z2M on restart) stays quiet; a change speaks.
        try s.publish("kitchen", #"{"battery":96,"water_leak":true,"linkquality":99}"#)
        try s.publish("bath", #"{"battery":88,"water_leak":true}"#)
        let shown = try await s.waitFor(s.display("bath"))
        #expect(try JSONValue.parse(shown[0].payload)["body"] == .string("bath"))
        stats = try await s.waitForStats("6 decided") { total($0, "received") == 6 && $0["in_flight"] == .int(0) }
        #expect(total(stats, "delivered") == 1 && total(stats, "suppressed") == 1)
        #expect(s.messages(on: s.display("kitchen")).isEmpty, "the kitchen's leak was known from the stored state")
        #expect(stats["filters"]?["once"]?["suppressed"] == .int(1))
        try await bridge.stop()
    }

    @Test("MQTT 5 Retain Handling 1: resubscribing to an existing subscription replays nothing")
    func retainHandlingOne() async throws {
        let broker = try TestBroker()
        let topic = uniqueName("rh") + "/state"
        let publisher = try await TestClient.connected(to: broker)
        try publisher.publish(topic, "stored", retain: true)
        try publisher.publish(topic + "2", "stored2", retain: true)
        // Both PUBACKed: stored before the subscriber asks (else it may get them live, retain off).
        try await publisher.waitUntilAcknowledged("the broker stored both")
        let c = try TestClient(options: TestClient.options(broker, subscriptions: [MQTTSubscription(filter: topic, qos: 1)]))
        c.start()
        _ = try await c.waitForMessages(count: 1)
        #expect(c.messages.map(\.retain) == [true])
        // The same filter with another QoS: a SUBSCRIBE for an existing subscription.
        c.client.setSubscriptions([MQTTSubscription(filter: topic, qos: 0), MQTTSubscription(filter: topic + "2", qos: 1)])
        try await c.waitUntilSubscribed()
        try publisher.publish(topic, "live")
        let all = try await c.waitForMessages(count: 3)
        #expect(all.map { String(decoding: $0.payload, as: UTF8.self) }.sorted() == ["live", "stored", "stored2"],
                "the new subscription gets its retained message, the existing one no second copy")
        c.stop()
        publisher.stop()
    }
}
