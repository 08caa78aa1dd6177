import Foundation
import Testing
@testable import PushBridge

/// Bridges with `state.redis` delivering to real services: each alert once, the stream empty
/// after; a replica SIGKILLed with deliveries pending has them delivered by another after
/// `claim_after`; a restarted replica resumes its own at once; Redis stopped for a while
/// loses and doubles nothing.
@Suite("Integration: output deliveries on Redis streams", .serialized)
struct RedisOutputFlowTests {
    /// A route, a journal, `state.redis` and `outputs` (YAML list items).
    static func yaml(_ s: Scenario, redis: TestRedis, prefix: String, claimAfter: String = "2s", clientID: String,
                     share: Bool = false, journal: String? = nil, outputs: String) throws -> String {
        let journal = try journal ?? makeTempDirectory()
        return s.yaml("""
            routes:
              - name: alarm
                topic: \(s.ns)/in/alarm/+
                qos: 1\(share ? "\n    share: pushbridge" : "")
                alert: {title: "Alarm {{ payload.n }}", body: "{{ payload.n }}"}
            journal: {path: \(journal), fsync: never}
            state:
              redis: {url: "redis://127.0.0.1:\(redis.port)/0", prefix: "\(prefix)", claim_after: \(claimAfter)}
            outputs:
            \(outputs)
            """, clientID: clientID)
    }

    /// A webhook output named `hook` to `url`, its body the alert's number.
    static func hook(_ url: String) -> String {
        """
          - name: hook
            timeout: 2s
            webhook: {url: "\(url)", body: '{"n":"{{ message.body }}"}'}
        """
    }

    /// How many requests under `path` carried each alert number (after the first `skipping`).
    static func counts(_ hook: HookServer, under path: String, skipping: Int = 0) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for r in try hook.requests(under: path).dropFirst(skipping) {
            guard let body = r["body"]?.stringValue, let n = try JSONValue.parse(body)["n"]?.stringValue else { continue }
            counts[n, default: 0] += 1
        }
        return counts
    }

    /// Entries left in the output's stream.
    static func streamLength(_ redis: TestRedis, _ key: String) throws -> Int64 {
        try RedisConnection(address: RedisAddress(place: .tcp(host: "127.0.0.1", port: redis.port))).command(["XLEN", key]).integer ?? -1
    }

    @Test("one bridge with state.redis and an ntfy output delivers each alert once; the stream is empty after")
    func oneBridgeNtfy() async throws {
        let redis = try TestRedis()
        let ntfy = try await NtfyServer.make()
        let s = try await Scenario.start()
        let topic = "pb-\(UUID().uuidString.prefix(8))"
        let prefix = uniqueName("pb") + ":"
        let bridge = try InProcessBridge.start(yaml: try Self.yaml(s, redis: redis, prefix: prefix, clientID: uniqueName("one"), outputs: """
              - {name: phones, timeout: 2s, ntfy: {url: "\(ntfy.url(topic))"}}
            """))
        try await s.waitUntilOnline()
        let count = 10
        for n in 0..<count { try s.publish("alarm/\(n)", #"{"n":\#(n)}"#) }
        try await eventually("\(count) alerts in ntfy", timeout: .seconds(30)) { try ntfy.messages(topic).count >= count }
        try await eventually("the stream acknowledged and emptied") { try Self.streamLength(redis, prefix + "out:phones") == 0 }
        try await bridge.stop()
        let bodies = try ntfy.messages(topic).compactMap { $0["message"]?.stringValue }
        #expect(bodies.sorted() == (0..<count).map(String.init).sorted())
        #expect(bridge.log.lines.contains { $0.contains("deliveries in the Redis streams") })
        await ntfy.stop()
    }

    @Test("two replicas on one Redis: A's service refuses (503), A is SIGKILLed, B delivers A's pending entries after claim_after; none twice, none lost")
    func claimAfterAReplicaDies() async throws {
        let redis = try TestRedis()
        let hook = try await HookServer.start()
        let s = try await Scenario.start()
        let prefix = uniqueName("pb") + ":"
        // The same outputs by name; A's endpoint answers 503 to everything, B's accepts.
        let a = try writeTempFile(try Self.yaml(s, redis: redis, prefix: prefix, clientID: uniqueName("replica-a"), share: true,
                                                outputs: Self.hook(hook.url("/flaky/1000000/a"))), name: "a.yml")
        let b = try writeTempFile(try Self.yaml(s, redis: redis, prefix: prefix, clientID: uniqueName("replica-b"), share: true,
                                                outputs: Self.hook(hook.url("/ok/b"))), name: "b.yml")
        let replicaA = try await PushbridgeBinary.start(configFile: a, broker: s.broker)
        defer { replicaA.send(SIGKILL) }
        let replicaB = try await PushbridgeBinary.start(configFile: b, broker: s.broker)
        defer { replicaB.send(SIGKILL) }
        let count = 12
        for n in 0..<count { try s.publish("alarm/\(n)", #"{"n":\#(n)}"#) }
        for n in 0..<count { _ = try await s.waitFor(s.display("alarm/\(n)"), timeout: .seconds(20)) }
        try await replicaA.errorLines.waitFor("A's refused deliveries", timeout: .seconds(20)) {
            $0.contains("output 'hook'") && $0.contains("retrying")
        }
        replicaA.send(SIGKILL)
        _ = await replicaA.waitForExit(timeout: .seconds(10))
        try await eventually("all \(count) alerts accepted at B's endpoint", timeout: .seconds(40)) {
            try Self.counts(hook, under: "/ok/b").count == count
        }
        try await replicaB.errorLines.waitFor("B took A's entries over", timeout: .seconds(10)) { $0.contains("took over") }
        // Every entry is finished (acknowledged and deleted): nothing more can be sent.
        try await eventually("the stream emptied") { try Self.streamLength(redis, prefix + "out:hook") == 0 }
        let counts = try Self.counts(hook, under: "/ok/b")
        #expect(counts == Dictionary(uniqueKeysWithValues: (0..<count).map { (String($0), 1) }), "\(counts)")
        _ = await replicaB.terminate(grace: .seconds(10))
        await hook.stop()
    }

    @Test("the service asks to wait (Retry-After 3 s) longer than claim_after (1 s): the live replica keeps its entries, the other takes none; each alert once")
    func retryAfterLongerThanClaimAfter() async throws {
        let redis = try TestRedis()
        let hook = try await HookServer.start()
        let s = try await Scenario.start()
        let prefix = uniqueName("pb") + ":"
        // The first request to the path is answered 429 with Retry-After: 3, the others 200.
        let yaml = { (id: String) in
            try Self.yaml(s, redis: redis, prefix: prefix, claimAfter: "1s", clientID: id, share: true,
                          outputs: Self.hook(hook.url("/limited/3/wait")))
        }
        let a = try InProcessBridge.start(yaml: try yaml(uniqueName("a")))
        let b = try InProcessBridge.start(yaml: try yaml(uniqueName("b")))
        try await a.waitUntilSubscribed(on: s.broker)
        try await b.waitUntilSubscribed(on: s.broker)
        let count = 6
        for n in 0..<count { try s.publish("alarm/\(n)", #"{"n":\#(n)}"#) }
        try await eventually("all \(count) alerts accepted", timeout: .seconds(30)) {
            try Self.counts(hook, under: "/limited/3/wait", skipping: 1).count == count
        }
        try await eventually("the stream emptied") { try Self.streamLength(redis, prefix + "out:hook") == 0 }
        try await a.stop()
        try await b.stop()
        let counts = try Self.counts(hook, under: "/limited/3/wait", skipping: 1)
        #expect(counts.values.allSatisfy { $0 == 1 }, "\(counts)")
        for log in [a.log, b.log] {
            #expect(!log.lines.contains { $0.contains("took over") || $0.contains("taken over by another replica") })
        }
        #expect((a.log.lines + b.log.lines).contains { $0.contains("HTTP 429") }, "the service did ask to wait")
        await hook.stop()
    }

    @Test("a replica restarted with the same client_id resumes its own pending entries at once (no claim_after wait)")
    func restartResumesAtOnce() async throws {
        let redis = try TestRedis()
        let hook = try await HookServer.start()
        let s = try await Scenario.start()
        let prefix = uniqueName("pb") + ":"
        let clientID = uniqueName("same")
        let first = try InProcessBridge.start(yaml: try Self.yaml(s, redis: redis, prefix: prefix, claimAfter: "24h", clientID: clientID,
                                                                  outputs: Self.hook(hook.url("/flaky/1000000/first"))))
        try await s.waitUntilOnline()
        let count = 5
        for n in 0..<count { try s.publish("alarm/\(n)", #"{"n":\#(n)}"#) }
        for n in 0..<count { _ = try await s.waitFor(s.display("alarm/\(n)"), timeout: .seconds(20)) }
        try await first.log.waitFor("the refused deliveries") { $0.contains("output 'hook'") && $0.contains("retrying") }
        try await first.stop()
        #expect(try Self.streamLength(redis, prefix + "out:hook") == Int64(count), "kept in Redis for the next start")

        // claim_after is a day: only taking back its own entries can deliver them now.
        let second = try InProcessBridge.start(yaml: try Self.yaml(s, redis: redis, prefix: prefix, claimAfter: "24h", clientID: clientID,
                                                                   outputs: Self.hook(hook.url("/ok/second"))))
        try await eventually("the \(count) pending alerts delivered by the restarted replica", timeout: .seconds(20)) {
            try Self.counts(hook, under: "/ok/second").count == count
        }
        try await eventually("the stream emptied") { try Self.streamLength(redis, prefix + "out:hook") == 0 }
        try await second.stop()
        #expect(try Self.counts(hook, under: "/ok/second").values.allSatisfy { $0 == 1 })
        await hook.stop()
    }

    @Test("Redis stopped for a few seconds while alerts are handed over: nothing lost, nothing doubled once it is back")
    func redisStoppedAWhile() async throws {
        let redis = try TestRedis(appendOnly: true)
        let hook = try await HookServer.start()
        let s = try await Scenario.start()
        let prefix = uniqueName("pb") + ":"
        let bridge = try InProcessBridge.start(yaml: try Self.yaml(s, redis: redis, prefix: prefix, clientID: uniqueName("outage"),
                                                                   outputs: Self.hook(hook.url("/ok/outage"))))
        try await s.waitUntilOnline()
        for n in 0..<5 { try s.publish("alarm/\(n)", #"{"n":\#(n)}"#) }
        try await eventually("the first 5 delivered", timeout: .seconds(20)) { try Self.counts(hook, under: "/ok/outage").count == 5 }
        redis.stop()
        for n in 5..<15 { try s.publish("alarm/\(n)", #"{"n":\#(n)}"#) }
        for n in 5..<15 { _ = try await s.waitFor(s.display("alarm/\(n)"), timeout: .seconds(20)) }
        try await bridge.log.waitFor("the outage logged") { $0.contains("does not answer") }
        // A few seconds down: the upkeeps fail, the held deliveries' lease (claim_after / 2) runs out.
        try await Task.sleep(for: .seconds(3))
        #expect(try Self.counts(hook, under: "/ok/outage").count == 5, "nothing is sent from memory alone")
        try redis.start()
        try await eventually("all 15 delivered once Redis is back", timeout: .seconds(30)) {
            try Self.counts(hook, under: "/ok/outage").count == 15
        }
        try await eventually("the stream emptied") { try Self.streamLength(redis, prefix + "out:hook") == 0 }
        try await bridge.stop()
        let counts = try Self.counts(hook, under: "/ok/outage")
        #expect(counts.values.allSatisfy { $0 == 1 }, "\(counts)")
        #expect(bridge.log.lines.filter { $0.contains("does not answer") }.count == 1,
                "the outage is logged once: \(bridge.log.lines.filter { $0.contains("Redis") })")
        #expect(bridge.log.lines.filter { $0.contains("answers again") }.count == 1)
        await hook.stop()
    }

    @Test("deliveries handed over while Redis is away wait in the journal: a stop keeps them, the next start adds them; each delivered once")
    func redisAwayAcrossARestart() async throws {
        let redis = try TestRedis(appendOnly: true)
        let hook = try await HookServer.start()
        let s = try await Scenario.start()
        let prefix = uniqueName("pb") + ":"
        let clientID = uniqueName("kept")
        let journal = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(atPath: journal) }
        let yaml = try Self.yaml(s, redis: redis, prefix: prefix, clientID: clientID, journal: journal, outputs: Self.hook(hook.url("/ok/kept")))
        let first = try InProcessBridge.start(yaml: yaml)
        try await s.waitUntilOnline()
        redis.stop()
        for n in 0..<5 { try s.publish("alarm/\(n)", #"{"n":\#(n)}"#) }
        for n in 0..<5 { _ = try await s.waitFor(s.display("alarm/\(n)"), timeout: .seconds(20)) }
        try await first.log.waitFor("the outage logged") { $0.contains("does not answer") }
        try await first.stop()
        #expect(first.log.lines.contains { $0.contains("deliveries wait in the journal") }, "\(first.log.lines.suffix(10))")
        #expect(!first.log.lines.contains { $0.contains("lost at the stop") })
        try redis.start()
        let second = try InProcessBridge.start(yaml: yaml)
        try await second.log.waitFor("the kept deliveries counted") { $0.contains("5 delivery(ies) wait in the journal") }
        try await eventually("the 5 kept deliveries delivered", timeout: .seconds(30)) { try Self.counts(hook, under: "/ok/kept").count == 5 }
        try await eventually("the stream emptied") { try Self.streamLength(redis, prefix + "out:hook") == 0 }
        try await second.stop()
        #expect(try Self.counts(hook, under: "/ok/kept").values.allSatisfy { $0 == 1 })
        await hook.stop()
    }
}
