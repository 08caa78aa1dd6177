import Foundation
import Testing
@testable import PushBridge

/// A digest route behind `share:` with its windows in Redis: three real replicas see one
/// window per key, whichever replica receives an alert, and one replica sends its summary.
@Suite("State: digests shared by three replicas on Redis", .serialized)
struct SharedDigestsTests {
    @Test("a storm of 12 alerts over three replicas: 2 delivered one by one, one summary of the other 10, sent once",
          .timeLimit(.minutes(3)))
    func oneWindowForAllReplicas() async throws {
        let set = try RedisReplicas("digest")
        let (broker, prefix) = (set.broker, set.prefix)
        for i in 0..<3 {
            try await set.start(i, """
                routes:
                  - name: motion
                    topic: "\(prefix)/motion/+"
                    share: pushbridge
                    qos: 1
                    alert: {title: "Motion: {{ levels[2] }}", body: "{{ payload.occupancy }}"}
                    digest: {window: 4s, max: 2, key: "all"}
                display: {topic: "display/{{ topic }}", qos: 1}
                monitoring: {status_topic: null, stats_topic: null}
                """, redis: "claim_after: 5s")
        }
        let display = try await TestClient.connected(
            to: broker, subscriptions: [MQTTSubscription(filter: "display/\(prefix)/#", qos: 1)])
        defer { display.stop(flushTimeout: .zero) }
        let publisher = try await TestClient.connected(to: broker)
        defer { publisher.stop(flushTimeout: .zero) }
        // Zigbee2MQTT occupancy sensors (zigbee2mqtt.io, "occupancy": true).
        for i in 0..<12 {
            try publisher.publish("\(prefix)/motion/room\(i)", #"{"occupancy":true,"battery":91,"illuminance_lux":12}"#, qos: 1)
        }
        try await publisher.waitUntilAcknowledged("storm flushed", timeout: .seconds(10))
        let messages = try await display.waitForMessages(count: 3, timeout: .seconds(20))
        try await Task.sleep(for: .seconds(3))  // nothing more: no second summary from another replica
        let all = display.messages
        let titles = all.compactMap { m -> String? in (try? JSONValue.parse(m.payload))?["title"]?.stringValue }
        print("state.redis digests: \(all.count) display messages: \(titles)")
        #expect(all.count == 3, "\(titles)")
        #expect(titles.filter { $0.hasPrefix("Motion: ") }.count == 2)
        #expect(titles.contains("10 more: motion"), "\(titles)")
        let summary = try #require(messages.first { (try? JSONValue.parse($0.payload))?["title"]?.stringValue == "10 more: motion" })
        let body = (try JSONValue.parse(summary.payload))["body"]?.stringValue ?? ""
        #expect(body.components(separatedBy: ", ").count == 10, "\(body)")
        for r in await set.stopAll() { #expect(r.exitedNormally && r.status == 0, "\(r.stderr.suffix(600))") }
    }
}
