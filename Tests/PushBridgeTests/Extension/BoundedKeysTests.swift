import Testing
@testable import PushBridge

/// The remembering filters' key table and hit memory against a plain model of what they
/// promise: the oldest written key forgotten first, expired keys dropped from the front, a
/// sliding window of admitted hits per key, and a journal round trip that changes nothing.
@Suite("Bounded key memory: table, hits and restore")
struct BoundedKeysTests {
    /// What `KeyedWindows` promises, written plainly: keys in the order of their last write.
    struct Model {
        let capacity: Int
        var order: [String] = []
        var hits: [String: [Int64]] = [:]

        mutating func admit(_ key: String, now: Int64, window: Int64, max: Int) -> Bool {
            while let first = order.first, let h = hits[first], now - h.last! >= window {
                order.removeFirst()
                hits[first] = nil
            }
            var h = (hits[key] ?? []).filter { now - $0 < window }
            guard h.count < max else {
                if hits[key] != nil { hits[key] = h }
                return false
            }
            h.append(now)
            hits[key] = h
            order.removeAll { $0 == key }
            order.append(key)
            while order.count > capacity { hits[order.removeFirst()] = nil }
            return true
        }
    }

    /// A small deterministic generator (the same sequence every run).
    struct Steps {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    @Test("admits exactly what the model admits, through evictions, expiry and queue compaction",
          arguments: [(1, 3), (1, 50), (3, 4), (3, 200), (2, 1)])
    func matchesTheModel(max: Int, capacity: Int) {
        let windows = KeyedWindows(capacity: capacity)
        var model = Model(capacity: capacity)
        var steps = Steps(state: UInt64(max * 1000 + capacity))
        var now: Int64 = 1_000_000_000
        for i in 0..<20_000 {
            now += Int64(steps.next(40)) * 1_000_000
            let key = "key-\(steps.next(i % 5000 < 2500 ? 6 : 400))"
            let window: Int64 = 500_000_000
            let admitted = windows.admit(key, now: .nanoseconds(now), window: .nanoseconds(window), max: max)
            #expect(admitted == model.admit(key, now: now, window: window, max: max), "step \(i), \(key)")
            if i % 997 == 0 { #expect(windows.count == model.order.count, "step \(i)") }
        }
        #expect(windows.count == model.order.count)
        for key in model.order { #expect(windows.contains(key)) }
    }

    @Test("rate_limit: a sliding window of max hits per key")
    func slidingWindow() {
        let w = KeyedWindows(capacity: 10)
        let window = Duration.seconds(10)
        for t in [0, 1, 2] { #expect(w.admit("k", now: .seconds(t), window: window, max: 3)) }
        #expect(!w.admit("k", now: .seconds(9), window: window, max: 3))
        #expect(w.admit("k", now: .seconds(10), window: window, max: 3), "the hit at 0 has left the window")
        #expect(w.admit("k", now: .seconds(11), window: window, max: 3), "and the one at 1")
        #expect(!w.admit("k", now: .milliseconds(11_500), window: window, max: 3), "2, 10 and 11 are in it")
        #expect(w.admit("k", now: .seconds(12), window: window, max: 3))
    }

    @Test("the journal's rows put back the same memory: refusals, order of eviction, nothing marked changed")
    func restoreRoundTrip() {
        let clocks = ClockReading(monotonic: .seconds(1000), wall: 1_765_000_000)
        let first = KeyedWindows(capacity: 3, tracksChanges: true)
        #expect(first.admit("a", now: .seconds(990), window: .seconds(60), max: 2))
        #expect(first.admit("a", now: .seconds(995), window: .seconds(60), max: 2))
        #expect(first.admit("b", now: .seconds(991), window: .seconds(60), max: 2))
        #expect(first.admit("c", now: .seconds(996), window: .seconds(60), max: 2))
        let rows = first.takeChanges(clocks).map { (key: $0.key, value: $0.value!) }
        #expect(rows.count == 3)
        #expect(first.takeChanges(clocks).isEmpty)

        let second = KeyedWindows(capacity: 3, tracksChanges: true)
        second.restore(rows.sorted { $0.key > $1.key }, clocks)
        #expect(second.count == 3)
        #expect(second.takeChanges(clocks).isEmpty, "restored keys are in the journal already")
        #expect(!second.admit("a", now: .seconds(1000), window: .seconds(60), max: 2), "two hits of a in the window")
        #expect(second.admit("d", now: .seconds(1000), window: .seconds(60), max: 2))
        #expect(!second.contains("b"), "b's last hit is the oldest: forgotten first")
        #expect(second.contains("a") && second.contains("c"))
        #expect(Set(second.takeChanges(clocks).map(\.key)) == ["b", "d"])
    }

    @Test("restored rows are put back at the first use, whichever comes first: a decision or the warm-up")
    func restoreAtFirstUse() {
        let clocks = ClockReading(monotonic: .seconds(1000), wall: 1_765_000_000)
        let rows = [(key: "a", value: "1764999990"), (key: "b", value: "1764999995,1764999999")]
        let decided = KeyedWindows(capacity: 10)
        decided.restore(rows, clocks)
        #expect(!decided.admit("a", now: .seconds(1000), window: .seconds(60), max: 1), "a is remembered")
        #expect(decided.count == 2)
        let warmed = KeyedWindows(capacity: 10)
        warmed.restore(rows, clocks)
        warmed.warm()
        warmed.warm()
        #expect(warmed.count == 2)
        #expect(!warmed.admit("b", now: .seconds(1000), window: .seconds(60), max: 2), "two hits of b in the window")
        let values = ChangedValues(capacity: 10)
        values.restore([(key: "t", value: "21.5")], clocks)
        #expect(values.observe("t", value: "21.5", deadband: 0) == .unchanged)
        values.warm()
        #expect(values.observe("t", value: "22", deadband: 0) == .changed)
    }

    @Test("restore keeps the newest capacity keys; later writes evict in restore order")
    func tableRestore() {
        var table = BoundedKeys<String>(capacity: 3, tracksChanges: true)
        table.restore([(key: "w", value: "0"), (key: "x", value: "1"), (key: "y", value: "2"), (key: "z", value: "3")])
        #expect(table.count == 3 && table["w"] == nil && table["x"] == "1")
        #expect(table.takeChanges().isEmpty)
        #expect(table.set("x", "4") == 0)
        #expect(table.set("n", "5") == 1)
        #expect(table["y"] == nil && table["x"] == "4" && table["z"] == "3")
    }

    @Test("rewriting few keys many times compacts the queue and keeps the order of the last writes")
    func compactionKeepsOrder() {
        var table = BoundedKeys<Int>(capacity: 3, tracksChanges: false)
        for i in 0..<10_000 { _ = table.set(["a", "b", "c"][i % 3], i) }
        _ = table.set("a", -1)  // a is now the newest; b (written at 9997) the oldest
        #expect(table.set("d", 0) == 1)
        #expect(table["b"] == nil && table["a"] == -1 && table["c"] == 9998)
        #expect(table.set("e", 0) == 1)
        #expect(table["c"] == nil && table.count == 3)
    }
}
