import Foundation
import Testing
@testable import PushBridge

/// Real `pushbridge run` replicas in one shared-subscription group on one mosquitto, their
/// filter memory in one real redis-server (`state.redis`): they decide as one bridge, and
/// while Redis is away the stateful messages wait in their journals, nothing lost or doubled.
@Suite("State: replicas with share: and state.redis", .serialized)
struct SharedReplicasTests {
    static func url(_ redis: TestRedis) -> String { "redis://127.0.0.1:\(redis.port)/0" }

    /// A JSON display message's body.
    @Sendable static func body(_ m: InboundMessage) -> String? {
        guard case .object(let o)? = try? JSONValue.parse(m.payload), case .string(let body)? = o["body"] else { return nil }
        return body
    }

    @Test("three replicas: 1 000 stream messages once each; 200 keys each reported twice at once, each let through once",
          .timeLimit(.minutes(3)))
    func threeReplicasDecideAsOne() async throws {
        let broker = try ScaleOutTests.broker()
        let redis = try TestRedis()
        let set = try ReplicaSet(broker: broker, mode: .share, redis: Self.url(redis))
        let display = try await TestClient.connected(
            to: broker, subscriptions: [MQTTSubscription(filter: "display/\(set.prefix)/#", qos: 1)])
        defer { display.stop(flushTimeout: .zero) }
        try await set.startAll()
        // With the memory shared, `check`'s per-replica warning is gone.
        #expect(set.process(0)?.stderr.contains("warning:") == false, "\(set.process(0)?.stderr ?? "")")
        let publisher = try await TestClient.connected(to: broker)
        defer { publisher.stop(flushTimeout: .zero) }
        _ = try await publishStream(publisher, topics: (0..<20).map(set.streamTopic), perTopic: 50)
        // Each key twice back to back: the round-robin broker hands the copies to two replicas.
        for i in 0..<200 {
            try publisher.publish(set.reportTopic("k\(i)"), #"{"state":"leak"}"#, qos: 1)
            try publisher.publish(set.reportTopic("k\(i)"), #"{"state":"leak"}"#, qos: 1)
        }
        try await publisher.waitUntilAcknowledged("reports flushed", timeout: .seconds(30))
        try await display.waitForDistinct("stream messages displayed", count: 1000, timeout: .seconds(60), key: DisplayLog.key)
        let results = await set.stopAll()
        for r in results { #expect(r.exitedNormally && r.status == 0, "stderr: \(r.stderr.suffix(800))") }
        let stats = try await set.retainedStats()
        let delivered = stats.reduce(0) { $0 + Int(total($1, "delivered")) }
        try await display.waitForMessages(count: delivered, timeout: .seconds(20))
        let messages = display.messages
        let log = DisplayLog(messages)
        let reports = messages.filter { $0.topic.hasPrefix("display/\(set.prefix)/report/") }
        print("state.redis share: \(log.total) stream displays for 1000, \(log.duplicates) duplicate(s); "
              + "\(reports.count) report displays for 200 keys reported twice; received per replica "
              + "\(stats.map { total($0, "received") })")
        #expect(log.duplicates == 0)
        #expect(reports.count == 200)
        #expect(Set(reports.map(\.topic)).count == 200)
        #expect(stats.reduce(0) { $0 + Int(total($1, "suppressed")) } == 200)
        #expect(stats.filter { total($0, "received") > 0 }.count == 3, "every replica took part")
        for s in stats {
            #expect(s["state"]?["backend"] == .string("redis"), "\(s)")
            #expect(s["state"]?["connected"] == .bool(true), "\(s)")
        }
    }

    @Test("Redis stopped for 10 s under a 200 msg/s load: nothing lost, nothing doubled; /readyz 503 with the reason, then 200",
          .timeLimit(.minutes(3)))
    func redisAwayUnderLoad() async throws {
        let set = try RedisReplicas("outage")
        let (broker, redis, prefix) = (set.broker, set.redis, set.prefix)
        var ports: [Int] = []
        for i in 0..<2 {
            let port = try LoopbackPorts.free()
            ports.append(port)
            try await set.start(i, RedisReplicas.numbered("load", topic: "\(prefix)/load/+") + """
                monitoring:
                  status_topic: null
                  stats_topic: "\(prefix)/stats/\(i)"
                  interval: 1s
                  http: "127.0.0.1:\(port)"
                """)
        }
        for port in ports { try await eventually("ready", timeout: .seconds(60)) { (try? httpGet(port: port, path: "/readyz").status) == 200 } }
        let display = try await TestClient.connected(
            to: broker, subscriptions: [MQTTSubscription(filter: "display/\(prefix)/#", qos: 1)])
        defer { display.stop(flushTimeout: .zero) }
        let publisher = try await TestClient.connected(to: broker)
        defer { publisher.stop(flushTimeout: .zero) }
        let total = 3000
        let clock = ContinuousClock()
        let begin = clock.now
        var notReady: String?
        var stoppedAt: Int?
        for n in 0..<total {
            // 200 a second: 10 every 50 ms.
            if n % 10 == 0 { try await Task.sleep(until: begin + .milliseconds(n * 5), clock: clock) }
            try publisher.publish("\(prefix)/load/t\(n % 10)", #"{"n":\#(n)}"#, qos: 1)
            if n == 600 {
                redis.stop()
                stoppedAt = n
            }
            if let at = stoppedAt, n > at + 200, notReady == nil, let r = try? httpGet(port: ports[0], path: "/readyz"), r.status == 503 {
                notReady = r.body
            }
            if let at = stoppedAt, n == at + 2000 {
                try redis.start()
                stoppedAt = nil
            }
        }
        try await publisher.waitUntilAcknowledged("load flushed", timeout: .seconds(30))
        try await display.waitForDistinct("every message displayed", count: total, timeout: .seconds(60), key: Self.body)
        let bodies = display.messages.compactMap(Self.body)
        print("state.redis outage: \(bodies.count) displays for \(total) messages, \(Set(bodies).count) distinct; /readyz said: \(notReady ?? "nothing")")
        #expect(Set(bodies) == Set((0..<total).map(String.init)))
        #expect(bodies.count == total, "nothing doubled")
        #expect(notReady?.hasPrefix("not ready: state backend redis at redis://127.0.0.1:\(redis.port)/ is unreachable") == true,
                "\(notReady ?? "no 503")")
        for port in ports { try await eventually("ready again", timeout: .seconds(60)) { (try? httpGet(port: port, path: "/readyz").status) == 200 } }
        let metrics = try httpGet(port: ports[0], path: "/metrics").body
        #expect(metrics.contains("pushbridge_state_up 1"))
        #expect(metrics.contains(#"pushbridge_state_operations_total{op="filter_decide",result="ok"}"#))
        #expect(metrics.contains(#"pushbridge_state_operation_duration_seconds_bucket{op="filter_decide",le="+Inf"}"#))
        for r in await set.stopAll() {
            #expect(r.exitedNormally && r.status == 0, "\(r.stderr.suffix(600))")
            #expect(r.stderr.components(separatedBy: "does not answer").count - 1 <= 1, "logged once: \(r.stderr.suffix(1500))")
        }
    }
}
