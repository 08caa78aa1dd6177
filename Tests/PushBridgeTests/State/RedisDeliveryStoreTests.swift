import Foundation
import Testing
@testable import PushBridge

/// The output deliveries on Redis streams, against a real redis-server: added once, read by
/// one consumer, finished (acknowledged and deleted), kept by a live consumer, claimed from a
/// silent one, never sent again once delivered, resumed by a restarted consumer at once.
@Suite("Outputs on Redis: the delivery store (streams, consumer group, claims)")
struct RedisDeliveryStoreTests {
    struct Setup {
        let redis: TestRedis
        let prefix = uniqueName("pb") + ":"
        let health = StateHealth(backend: "redis", shown: "test")

        init(appendOnly: Bool = false) throws { redis = try TestRedis(appendOnly: appendOnly) }

        func store(_ consumer: String, claimAfter: Duration = .seconds(30)) -> RedisDeliveryStore {
            var c = RedisStateConfig(address: RedisAddress(place: .tcp(host: "127.0.0.1", port: redis.port)))
            c.prefix = prefix
            c.claimAfter = claimAfter
            return RedisDeliveryStore(config: c, consumer: consumer, outputs: ["phones"], health: health,
                                      logger: BridgeLogger(level: .error))
        }

        var connection: RedisConnection { RedisConnection(address: RedisAddress(place: .tcp(host: "127.0.0.1", port: redis.port))) }

        func length() throws -> Int64? { try connection.command(["XLEN", prefix + "out:phones"]).integer }

        func add(_ store: RedisDeliveryStore, _ key: String, target: String = "") throws -> [Bool] {
            try store.add([DeliveryRowKey(output: "phones", key: key, target: target)], item: Array(#"{"id":"\#(key)"}"#.utf8),
                          files: ["a/b.png"], created: 1_000)
        }
    }

    @Test("an item is added once per target; a replay of it adds nothing, also after it was finished")
    func addedOnce() throws {
        let s = try Setup()
        let a = s.store("a")
        #expect(try s.add(a, "k1") == [true])
        #expect(try a.add([DeliveryRowKey(output: "phones", key: "k1", target: ""), DeliveryRowKey(output: "phones", key: "k1", target: "e2")],
                          item: [], files: [], created: 1) == [false, true])
        var cursor = DeliveryCursor()
        let read = try a.read(output: "phones", cursor: &cursor, limit: 10)
        #expect(read.map(\.key) == ["k1", "k1"])
        #expect(read.map(\.target) == ["", "e2"])
        #expect(read[0].item == Array(#"{"id":"k1"}"#.utf8))
        #expect(read[0].files == ["a/b.png"])
        #expect(read[0].created == 1_000)
        #expect(read.allSatisfy { $0.entry != nil && $0.row == nil })
        try a.finish(read, output: "phones")
        #expect(try s.length() == 0, "finished entries are deleted from the stream")
        #expect(try s.add(a, "k1") == [false], "a replay after the delivery adds nothing")
        #expect(try a.read(output: "phones", cursor: &cursor, limit: 10).isEmpty)
        #expect(s.health.operations["output_add"]?.ok == 3)
        #expect(s.health.operations["output_ack"]?.ok == 1)
    }

    @Test("two consumers share the entries: each is read by one of them")
    func eachEntryReadByOne() throws {
        let s = try Setup()
        let a = s.store("a"), b = s.store("b")
        for n in 0..<10 { _ = try s.add(n % 2 == 0 ? a : b, "k\(n)") }
        var ca = DeliveryCursor(), cb = DeliveryCursor()
        let first = try a.read(output: "phones", cursor: &ca, limit: 4)
        let second = try b.read(output: "phones", cursor: &cb, limit: 100)
        #expect(first.count == 4 && second.count == 6)
        #expect(Set(first.map(\.key) + second.map(\.key)).count == 10)
        #expect(try a.read(output: "phones", cursor: &ca, limit: 100).isEmpty)
    }

    @Test("a restarted consumer (same name) gets its own pending entries back at once, before new ones")
    func restartResumesOwnEntries() throws {
        let s = try Setup()
        let before = s.store("a")
        for n in 0..<3 { _ = try s.add(before, "k\(n)") }
        var c1 = DeliveryCursor()
        #expect(try before.read(output: "phones", cursor: &c1, limit: 10).count == 3)
        _ = try s.add(before, "k3")
        let after = s.store("a", claimAfter: .seconds(3600))
        var c2 = DeliveryCursor()
        let own = try after.read(output: "phones", cursor: &c2, limit: 2)
        #expect(own.map(\.key) == ["k0", "k1"])
        #expect(c2.ownEntries != nil)
        let rest = try after.read(output: "phones", cursor: &c2, limit: 10)
        #expect(rest.map(\.key) == ["k2", "k3"], "the last own entry, then the new one")
        #expect(c2.ownEntries == nil)
    }

    @Test("entries kept by a live consumer are not claimed; a silent consumer's are, after claim_after")
    func keptOrClaimed() async throws {
        let s = try Setup()
        let claimAfter = Duration.milliseconds(600)
        let a = s.store("a", claimAfter: claimAfter), b = s.store("b", claimAfter: claimAfter)
        for n in 0..<3 { _ = try s.add(a, "k\(n)") }
        var ca = DeliveryCursor()
        let held = try a.read(output: "phones", cursor: &ca, limit: 10)
        #expect(held.count == 3)
        try await Task.sleep(for: .milliseconds(800))
        // a keeps them (its upkeep), then b looks: nothing idle long enough.
        let kept = a.upkeep(output: "phones", held: held, claimRoom: 100)
        #expect(kept.lost.isEmpty && kept.claimed.isEmpty && !kept.unreachable)
        #expect((kept.startBefore ?? 0) > Date().timeIntervalSince1970)
        #expect(b.upkeep(output: "phones", held: [], claimRoom: 100).claimed.isEmpty)
        // a goes silent: after claim_after b claims them, and a learns they are no longer its.
        try await Task.sleep(for: .milliseconds(800))
        let claimed = b.upkeep(output: "phones", held: [], claimRoom: 100).claimed
        #expect(claimed.map(\.key) == ["k0", "k1", "k2"])
        #expect(claimed[0].item == Array(#"{"id":"k0"}"#.utf8))
        #expect(a.upkeep(output: "phones", held: held, claimRoom: 0).lost == Set(held.compactMap(\.entry)))
        try b.finish(claimed, output: "phones")
        #expect(try s.length() == 0)
    }

    @Test("a claimed entry whose delivery succeeded before its acknowledgement is acknowledged, never sent again")
    func deliveredButNotAcknowledged() async throws {
        let s = try Setup()
        let a = s.store("a", claimAfter: .milliseconds(300)), b = s.store("b", claimAfter: .milliseconds(300))
        _ = try s.add(a, "k0")
        _ = try s.add(a, "k1")
        var ca = DeliveryCursor()
        let held = try a.read(output: "phones", cursor: &ca, limit: 10)
        // k0 was delivered (2xx) and marked, then the replica died before XACK.
        _ = try s.connection.command(["SET", a.markKey("phones", key: "k0", target: ""), "d"])
        try await Task.sleep(for: .milliseconds(500))
        let claimed = b.upkeep(output: "phones", held: [], claimRoom: 10).claimed
        #expect(claimed.map(\.key) == ["k1"])
        #expect(try s.length() == 1, "k0 was acknowledged and deleted without being sent")
        #expect(held.count == 2)
    }

    @Test("a consumer gone for good (nothing pending, idle) is forgotten; one with entries pending never is")
    func goneConsumersForgotten() async throws {
        let s = try Setup()
        let a = s.store("a"), b = s.store("b"), c = s.store("c")
        _ = try s.add(a, "k0")
        var cb = DeliveryCursor(), cc = DeliveryCursor()
        #expect(try b.read(output: "phones", cursor: &cb, limit: 10).count == 1, "b holds k0")
        #expect(try c.read(output: "phones", cursor: &cc, limit: 10).isEmpty, "c holds nothing")
        try await Task.sleep(for: .milliseconds(300))
        #expect(try a.forgetGoneConsumers(output: "phones", idleMilliseconds: 200) == 1)
        let consumers = try s.connection.command(["XINFO", "CONSUMERS", s.prefix + "out:phones", RedisDeliveryStore.group])
        guard case .array(let list) = consumers else { Issue.record("no consumer list: \(consumers)"); return }
        #expect(list.count == 1, "b (with k0 pending) is kept, c is forgotten: \(list)")
        // A forgotten consumer that comes back is simply made again by its next read.
        #expect(try c.read(output: "phones", cursor: &cc, limit: 10).isEmpty)
    }

    @Test("Redis unreachable: adds and reads throw, the upkeep says so; all works again when it is back")
    func unreachable() async throws {
        let s = try Setup(appendOnly: true)
        let a = s.store("a")
        _ = try s.add(a, "k0")
        s.redis.stop()
        #expect(throws: OutputStoreError.self) { try s.add(a, "k1") }
        var c = DeliveryCursor()
        #expect(throws: OutputStoreError.self) { try a.read(output: "phones", cursor: &c, limit: 10) }
        #expect(a.upkeep(output: "phones", held: [], claimRoom: 10).unreachable)
        #expect(s.health.problem != nil)
        try s.redis.start()
        // Until it has loaded its data it answers LOADING: an add that fails like any other.
        try await eventually("the add once Redis is back") { (try? s.add(a, "k1")) == [true] }
        #expect(try a.read(output: "phones", cursor: &c, limit: 10).map(\.key) == ["k0", "k1"])
        #expect(s.health.problem == nil)
    }
}
