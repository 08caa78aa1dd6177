import Foundation
import Synchronization
import Testing
@testable import PushBridge

/// The remembering filters' memory in a real redis-server: the script's verdicts for each
/// kind, a message decided once (a replay gets its first answers), two replicas deciding the
/// same key at the same moment, the script loaded again after a flush, and Redis's own
/// append-only file keeping the memory across its restart.
@Suite("State: the filters' memory in Redis", .serialized)
struct RedisFilterMemoryTests {
    /// A replica's shared state on `redis`.
    static func state(_ redis: TestRedis, prefix: String = "t:") -> RedisState {
        var config = RedisStateConfig(address: RedisAddress(place: .tcp(host: "127.0.0.1", port: redis.port)))
        config.prefix = prefix
        return RedisState(config: config, client: "test", logger: LogCollector().logger(level: .debug))
    }

    /// The answers to `steps` for the message `once`.
    static func decide(_ memory: RedisFilterMemory, _ steps: [FilterMemoryStep], once: String) async -> String {
        await withCheckedContinuation { c in
            memory.decide(steps, once: once) { answers in c.resume(returning: String(answers.map(\.rawValue))) }
        }
    }

    static func dedupe(_ key: String, window: Duration = .seconds(60)) -> FilterMemoryStep {
        FilterMemoryStep(filter: "once\u{1F}dedupe", key: key, kind: .window(window: window, max: 1))
    }

    static func changed(_ key: String, _ value: String, deadband: Double = 0, deliverFirst: Bool = true) -> FilterMemoryStep {
        FilterMemoryStep(filter: "on-change\u{1F}changed", key: key, kind: .changed(value: value, deadband: deadband, deliverFirst: deliverFirst))
    }

    @Test func dedupeAndRateLimitCountTheHitsInTheirWindow() async throws {
        let redis = try TestRedis()
        let state = Self.state(redis)
        defer { state.stop() }
        #expect(await Self.decide(state.filters, [Self.dedupe("door")], once: "m1") == "p")
        #expect(await Self.decide(state.filters, [Self.dedupe("door")], once: "m2") == "r")
        #expect(await Self.decide(state.filters, [Self.dedupe("window")], once: "m3") == "p")
        let limit = FilterMemoryStep(filter: "three\u{1F}rate", key: "k", kind: .window(window: .seconds(60), max: 3))
        var answers = ""
        for i in 0..<5 { answers += await Self.decide(state.filters, [limit], once: "r\(i)") }
        #expect(answers == "ppprr")
        // A short window: the hit leaves it, and the key with it (PEXPIRE). On a busy machine the
        // second decision may come after the window: then it passes, as it should.
        let short = Self.dedupe("brief", window: .seconds(1))
        let clock = ContinuousClock()
        let first = clock.now
        #expect(await Self.decide(state.filters, [short], once: "s1") == "p")
        let second = await Self.decide(state.filters, [short], once: "s2")
        #expect(second == (clock.now - first < .milliseconds(900) ? "r" : "p") || second == "r")
        try await Task.sleep(until: first + .milliseconds(1_300), clock: clock)
        #expect(await Self.decide(state.filters, [short], once: "s3") == (second == "r" ? "p" : "r"))
        #expect(state.health.isConnected)
        #expect(state.health.operations["filter_decide"]?.ok == 11)
    }

    @Test func changedComparesTextAndNumbersWithItsDeadband() async throws {
        let redis = try TestRedis()
        let state = Self.state(redis)
        defer { state.stop() }
        let m = state.filters
        var n = 0
        func next(_ step: FilterMemoryStep) async -> String {
            n += 1
            return await Self.decide(m, [step], once: "c\(n)")
        }
        #expect(await next(Self.changed("temp", "21.5")) == "f")
        #expect(await next(Self.changed("temp", "21.50")) == "u")   // equal as numbers
        #expect(await next(Self.changed("temp", "22")) == "c")
        #expect(await next(Self.changed("state", "on")) == "f")
        #expect(await next(Self.changed("state", "on")) == "u")
        #expect(await next(Self.changed("state", "off")) == "c")
        // A deadband: within it nothing is recorded, so a slow drift is reported once it has moved by more.
        #expect(await next(Self.changed("level", "10", deadband: 1)) == "f")
        #expect(await next(Self.changed("level", "10.6", deadband: 1)) == "u")
        #expect(await next(Self.changed("level", "10.9", deadband: 1)) == "u")
        #expect(await next(Self.changed("level", "11.2", deadband: 1)) == "c")
        // initial: suppress — the first value stops the chain (the answer is the same letter).
        #expect(await next(Self.changed("quiet", "1", deliverFirst: false)) == "f")
        // Retained state teaches the value: the next report of it is unchanged.
        m.teach([FilterMemoryStep(filter: "on-change\u{1F}changed", key: "taught", kind: .teach(value: "open"))])
        #expect(await next(Self.changed("taught", "open")) == "u")
    }

    @Test func aMessageIsDecidedOnceAndTheChainStopsAtTheFirstRefusal() async throws {
        let redis = try TestRedis()
        let state = Self.state(redis)
        defer { state.stop() }
        let steps = [Self.changed("s", "on"), Self.dedupe("s"), Self.dedupe("other")]
        #expect(await Self.decide(state.filters, steps, once: "a/route") == "fpp")
        // The same message again (a replay after a crash): the same answers, nothing recorded twice.
        #expect(await Self.decide(state.filters, steps, once: "a/route") == "fpp")
        // Another message: the changed filter stops it, the dedupes are not touched.
        #expect(await Self.decide(state.filters, steps, once: "b/route") == "u")
        #expect(await Self.decide(state.filters, [Self.changed("s", "off"), Self.dedupe("s")], once: "c/route") == "cr")
        let c = RedisConnection(address: RedisAddress(place: .tcp(host: "127.0.0.1", port: redis.port)))
        #expect(try c.command(["EXISTS", "t:once:a/route"]) == .integer(1))
        // Kept a day with a `changed` step; with windows only, their longest (at least 10 minutes).
        let ttl = try #require(try c.command(["PTTL", "t:once:a/route"]).integer)
        #expect(ttl > 86_000_000 && ttl <= 86_400_000)
        #expect(await Self.decide(state.filters, [Self.dedupe("w1", window: .seconds(60))], once: "e/route") == "p")
        let short = try #require(try c.command(["PTTL", "t:once:e/route"]).integer)
        #expect(short > 590_000 && short <= 600_000)
        #expect(await Self.decide(state.filters, [Self.dedupe("w2", window: .seconds(3_600))], once: "f/route") == "p")
        let long = try #require(try c.command(["PTTL", "t:once:f/route"]).integer)
        #expect(long > 3_590_000 && long <= 3_600_000)
        // The script is loaded again after the server forgot it.
        #expect(try c.command(["SCRIPT", "FLUSH"]) == .status("OK"))
        #expect(await Self.decide(state.filters, [Self.dedupe("after-flush")], once: "d") == "p")
    }

    @Test("two replicas reporting the same key at the same moment: one lets it through (200 keys)")
    func twoReplicasDecideAsOne() async throws {
        let redis = try TestRedis()
        let a = Self.state(redis), b = Self.state(redis)
        defer { a.stop(); b.stop() }
        let passed = await withTaskGroup(of: Bool.self) { group in
            for i in 0..<200 {
                for (replica, memory) in [("a", a.filters), ("b", b.filters)] {
                    group.addTask {
                        await Self.decide(memory, [Self.dedupe("leak-\(i)")], once: "\(replica)-\(i)/r") == "p"
                    }
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(passed == 200)
    }

    @Test func theMemorySurvivesARedisRestartFromItsAppendOnlyFile() async throws {
        let redis = try TestRedis(appendOnly: true)
        let state = Self.state(redis)
        defer { state.stop() }
        #expect(await Self.decide(state.filters, [Self.dedupe("door")], once: "1") == "p")
        #expect(await Self.decide(state.filters, [Self.changed("t", "20")], once: "2") == "f")
        redis.stop()
        try redis.start()
        #expect(await Self.decide(state.filters, [Self.dedupe("door")], once: "3") == "r")
        #expect(await Self.decide(state.filters, [Self.changed("t", "20")], once: "4") == "u")
        #expect(await Self.decide(state.filters, [Self.dedupe("door")], once: "1") == "p")  // decided once, kept
    }

    @Test func whileRedisIsDownTheDecisionsWaitAndHealthSaysWhy() async throws {
        let redis = try TestRedis()
        let log = LogCollector()
        var config = RedisStateConfig(address: RedisAddress(place: .tcp(host: "127.0.0.1", port: redis.port)))
        config.prefix = "down:"
        let state = RedisState(config: config, client: "test", logger: log.logger(level: .debug))
        defer { state.stop() }
        #expect(await Self.decide(state.filters, [Self.dedupe("k")], once: "1") == "p")
        redis.stop()
        let answered = Mutex<String?>(nil)
        state.filters.decide([Self.dedupe("k2")], once: "2") { answers in answered.withLock { $0 = String(answers.map(\.rawValue)) } }
        try await eventually("Redis seen down", timeout: .seconds(10)) { state.health.problem != nil }
        #expect(state.health.problem?.hasPrefix("state backend redis at redis://127.0.0.1:\(redis.port)/ is unreachable") == true)
        try await Task.sleep(for: .milliseconds(300))
        #expect(answered.withLock { $0 } == nil)
        try redis.start()
        try await eventually("decided once Redis is back", timeout: .seconds(10)) { answered.withLock { $0 } == "p" }
        #expect(state.health.problem == nil)
        let lines = log.lines
        #expect(lines.filter { $0.contains("does not answer") }.count == 1, "\(lines)")
        #expect(lines.filter { $0.contains("answers again") }.count == 1, "\(lines)")
    }
}
