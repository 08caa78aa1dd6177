import Foundation
import Testing
@testable import PushBridge

/// Conditions shared in Redis by three real `pushbridge run` replicas in one `share:` group:
/// a leak reported to two replicas at once is raised once, each repeat is sent by one replica,
/// every replica lists the alert (`pushbridge alerts` against any of them), an acknowledgement
/// stops the repeats everywhere, and a clear through any replica ends it everywhere.
///
/// Payloads: Zigbee2MQTT water leak sensors (as `ConditionFlowTests`).
@Suite("State: conditions shared by three replicas on Redis", .serialized)
struct SharedConditionsTests {
    static func yaml(prefix: String, http: Int) -> String {
        """
        conditions: {ack_topic: \(prefix)/ack}
        routes:
          - name: leak
            topic: "\(prefix)/in/#"
            share: pushbridge
            qos: 1
            alert: {title: "Water leak", body: "{{ topic }}"}
            condition:
              key: "{{ topic }}"
              active: 'payload.water_leak == true'
              repeat: {every: 2s}
        display: {topic: "display/{{ topic }}", qos: 1}
        monitoring: {status_topic: null, stats_topic: null, http: "127.0.0.1:\(http)"}
        """
    }

    /// `condition.state` and `condition.repeat` of a display message.
    static func told(_ m: InboundMessage) -> String? {
        guard let v = try? JSONValue.parse(m.payload), let c = v["condition"] else { return nil }
        return "\(jsonString(c["state"])) \(c["repeat"]?.exactInteger.map { "\($0)" } ?? "")"
    }

    @Test("raised once, each repeat once, listed by every replica, acknowledged and cleared everywhere", .timeLimit(.minutes(3)))
    func threeReplicasShareTheirConditions() async throws {
        let set = try RedisReplicas("cond")
        let (broker, prefix) = (set.broker, set.prefix)
        var ports: [Int] = []
        for i in 0..<3 {
            ports.append(try LoopbackPorts.free())
            try await set.start(i, Self.yaml(prefix: prefix, http: ports[i]), subscriptions: 2)
        }
        let files = (0..<3).map(set.file)
        let display = try await TestClient.connected(
            to: broker, subscriptions: [MQTTSubscription(filter: "display/\(prefix)/#", qos: 1)])
        defer { display.stop(flushTimeout: .zero) }
        let publisher = try await TestClient.connected(to: broker)
        defer { publisher.stop(flushTimeout: .zero) }
        // The same report twice, back to back: the round-robin broker hands it to two replicas.
        try publisher.publish("\(prefix)/in/basement", ConditionFlowTests.wet, qos: 1)
        try publisher.publish("\(prefix)/in/basement", ConditionFlowTests.wet, qos: 1)
        let raised = try await display.waitForMessages(count: 1, timeout: .seconds(15))
        let id = jsonString(try JSONValue.parse(raised[0].payload)["condition"]?["alert_id"])
        // Three repeats later (every 2 s)…
        _ = try await display.waitForMessages(count: 4, timeout: .seconds(20))
        // …every replica lists the alert: `pushbridge alerts` answers the same against any of them.
        for file in files {
            let alerts = try await ManagedProcess.run(try PushbridgeBinary.located(), ["alerts", "-c", file, "--json"])
            #expect(alerts.status == 0 && alerts.stdout.contains(id), "\(alerts.stdout) \(alerts.stderr)")
        }
        let acked = try await ManagedProcess.run(try PushbridgeBinary.located(), ["ack", "-c", files[2], id, "--by", "tester"])
        #expect(acked.status == 0, "\(acked.stderr)")
        try await Task.sleep(for: .seconds(1))  // a repeat claimed just before the answer
        let atAck = display.messages.count
        try await Task.sleep(for: .seconds(5))  // more than two repeat intervals
        let afterAck = display.messages.count
        try publisher.publish("\(prefix)/in/basement", ConditionFlowTests.dry, qos: 1)
        try await eventually("every replica forgot the cleared alert", timeout: .seconds(20)) {
            ports.allSatisfy { (try? httpGet(port: $0, path: "/api/alerts").body) == "[]" }
        }
        let told = display.messages.compactMap(Self.told)
        print("state.redis conditions: told \(told); \(afterAck - atAck) after the acknowledgement")
        #expect(told.filter { $0.hasPrefix("raised") }.count == 1, "\(told)")
        let repeats = told.filter { $0.hasPrefix("repeated") }
        #expect(repeats.count >= 3)
        #expect(Set(repeats).count == repeats.count, "each repeat once: \(repeats)")
        #expect(afterAck == atAck, "no repeat after the acknowledgement")
        for r in await set.stopAll() { #expect(r.exitedNormally && r.status == 0, "\(r.stderr.suffix(600))") }
    }
}
