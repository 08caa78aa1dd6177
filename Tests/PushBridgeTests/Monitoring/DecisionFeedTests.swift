import Foundation
import Testing
@testable import PushBridge

@Suite("Decision feed: ring buffer")
struct EventRingTests {
    func drain(_ ring: inout EventRing, chunk: Int = 1 << 16) -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: chunk)
        while true {
            let n = buffer.withUnsafeMutableBytes { ring.read(into: $0) }
            if n == 0 { return out }
            out += buffer[0..<n]
        }
    }

    @Test func framesComeOutInOrder() {
        var ring = EventRing(capacity: 4, maxBytes: 100)
        #expect(ring.push(Array("a\n".utf8)) == 0)
        #expect(ring.push(Array("bb\n".utf8)) == 0)
        #expect(ring.count == 2 && ring.bytes == 5)
        #expect(drain(&ring) == Array("a\nbb\n".utf8))
        #expect(ring.isEmpty && ring.bytes == 0)
    }

    @Test func aFullRingForgetsTheOldestAndSaysHowMany() {
        var ring = EventRing(capacity: 3, maxBytes: 1000)
        for i in 0..<3 { #expect(ring.push([UInt8(ascii: "0") + UInt8(i)]) == 0) }
        #expect(ring.push([UInt8(ascii: "3")]) == 1)
        #expect(ring.push([UInt8(ascii: "4")]) == 1)
        #expect(String(decoding: drain(&ring), as: UTF8.self) == "234")
    }

    @Test func theByteBoundHoldsToo() {
        var ring = EventRing(capacity: 100, maxBytes: 10)
        #expect(ring.push([UInt8](repeating: 1, count: 4)) == 0)
        #expect(ring.push([UInt8](repeating: 2, count: 4)) == 0)
        #expect(ring.push([UInt8](repeating: 3, count: 4)) == 1)   // 12 > 10: the first goes
        #expect(ring.bytes == 8)
        #expect(ring.push([UInt8](repeating: 9, count: 11)) == 1)  // larger than the ring: itself forgotten
        #expect(drain(&ring) == [UInt8](repeating: 2, count: 4) + [UInt8](repeating: 3, count: 4))
    }

    @Test func aFrameLongerThanTheReadBufferContinuesOnTheNextRead() {
        var ring = EventRing(capacity: 8, maxBytes: 1000)
        let a = Array("event: x\ndata: 0123456789\n\n".utf8), b = Array("event: y\ndata: z\n\n".utf8)
        ring.push(a)
        ring.push(b)
        #expect(drain(&ring, chunk: 5) == a + b)
    }

    @Test func aPartlyReadFrameIsNeverForgotten() {
        var ring = EventRing(capacity: 2, maxBytes: 1000)
        ring.push(Array("first-frame".utf8))
        ring.push(Array("second".utf8))
        var buffer = [UInt8](repeating: 0, count: 5)
        #expect(buffer.withUnsafeMutableBytes { ring.read(into: $0) } == 5)   // "first" on the wire
        #expect(ring.push(Array("third".utf8)) == 1)                          // "second" goes, not the head
        #expect(String(decoding: Array("first".utf8) + drain(&ring), as: UTF8.self) == "first-framethird")
    }

    @Test func aDecisionIsEncodedWhenItIsRead() {
        var ring = EventRing(capacity: 8, maxBytes: 10_000)
        let record = DecisionRecord(at: 0, id: "i", topic: "a/b", route: "r", outcome: .delivered, decidedBy: nil,
                                    rule: "rule 6", reason: nil)
        ring.push(decision: record)
        ring.push(Array(": after\n\n".utf8))
        #expect(ring.bytes == EventRing.Frame.decision(record).size + 9)
        let expected = DecisionFeed.frame(event: "decision", data: record.json()) + Array(": after\n\n".utf8)
        #expect(drain(&ring, chunk: 7) == expected)
        #expect(ring.bytes == 0)
    }

    @Test func staysBoundedUnderAFlood() {
        var ring = EventRing(capacity: 64, maxBytes: 4096)
        var forgotten = 0
        for i in 0..<10_000 { forgotten += ring.push(Array("event: d\ndata: \(i)\n\n".utf8)) }
        #expect(ring.count <= 64 && ring.bytes <= 4096)
        #expect(forgotten == 10_000 - ring.count)
        #expect(String(decoding: drain(&ring), as: UTF8.self).hasSuffix("data: 9999\n\n"))
    }
}

@Suite("Decision feed: decision objects and readers")
struct DecisionFeedTests {
    func object(_ bytes: [UInt8]) throws -> [String: JSONValue] {
        guard case .object(let o) = try decodeJSON(bytes) else { throw ProcessError(description: "not an object") }
        return Dictionary(uniqueKeysWithValues: o.keys.map { ($0, o[$0]!) })
    }

    @Test func theObjectHasExactlyTheSpecKeysInOrder() throws {
        var d = decision(.suppressed, route: "doorbell", by: "drop-test")
        d.rule = "empty content from drop-test: suppressed"
        let r = DecisionRecord(d, id: "6f1c2b9e-4d3a-4c2b-9a51-2f0e8d7c6b5a", topic: "home/front/doorbell", at: 1_764_597_738.123)
        let text = String(decoding: r.json(), as: UTF8.self)
        #expect(text == #"{"at":"2025-12-01T14:02:18.123Z","id":"6f1c2b9e-4d3a-4c2b-9a51-2f0e8d7c6b5a","topic":"home/front/doorbell","route":"doorbell","outcome":"suppressed","decided_by":"drop-test","rule":"empty content from drop-test: suppressed","reason":null}"#)
    }

    @Test func rejectedCarriesItsReasonAndUnroutedHasNoRoute() throws {
        let rejected = try object(DecisionRecord(decision(.rejected, route: "tv", reason: .badCollapseId), id: "i", topic: "apns/tv", at: 0).json())
        #expect(Set(rejected.keys) == ["at", "id", "topic", "route", "outcome", "decided_by", "rule", "reason"])
        #expect(rejected["reason"] == .string("BadCollapseId") && rejected["outcome"] == .string("rejected"))
        #expect(rejected["decided_by"] == .null)
        let unrouted = try object(DecisionRecord(decision(.unrouted), id: "i", topic: "x", at: 0).json())
        #expect(unrouted["route"] == .null && unrouted["outcome"] == .string("unrouted"))
        // decided_by only names who suppressed.
        let delivered = try object(DecisionRecord(decision(.delivered, by: "someone"), id: "i", topic: "x", at: 0).json())
        #expect(delivered["decided_by"] == .null)
    }

    @Test func strangeTopicsAreEscapedAndLongRulesCut() throws {
        var d = decision(.delivered)
        d.rule = String(repeating: "r", count: 1000)
        let r = DecisionRecord(d, id: "i", topic: "a\"b\\c\n\u{1}é/#", at: 0)
        let bytes = r.json()
        #expect(!bytes.contains(10), "a raw newline would end the SSE data line")
        let o = try object(bytes)
        #expect(o["topic"] == .string("a\"b\\c\n\u{1}é/#"))
        #expect(o["rule"]?.stringValue?.count == DecisionRecord.maxRuleLength)
    }

    @Test func attachmentsInTheirTraceFormWhenTheRouteHasThem() throws {
        var d = decision(.delivered, route: "door")
        let url = "http://127.0.0.1:9464/attachments/0123456789abcdef0123456789abcdef/snapshot.jpg"
        let picture = NotificationAttachment(identifier: "snapshot", type: "image/jpeg", size: 48213,
                                             file: "/var/lib/pushbridge/attachments/0123456789abcdef0123456789abcdef/snapshot.jpg", url: url)
        d.attachments = [.attached(picture, source: "from_topic cam/door/snapshot"),
                         .failed("clip", source: "url http://nvr/clip.mp4", .fetchFailed, "HTTP 404")]
        let o = try object(DecisionRecord(d, id: "i", topic: "cam/door/event", at: 0).json())
        #expect(Array(o.keys).count == 9)
        guard case .array(let list)? = o["attachments"] else {
            Issue.record("no attachments in \(o)")
            return
        }
        #expect(list[0]["identifier"] == .string("snapshot") && list[0]["attached"] == .bool(true))
        #expect(list[0]["type"] == .string("image/jpeg") && list[0]["size"] == .int(48213) && list[0]["url"] == .string(url))
        #expect(list[1]["attached"] == .bool(false) && list[1]["reason"] == .string("FetchFailed") && list[1]["detail"] == .string("HTTP 404"))
        #expect(!String(decoding: DecisionRecord(d, id: "i", topic: "t", at: 0).json(), as: UTF8.self).contains("/var/lib"),
                "never the stored file's path")
        // A route without attachments: the eight keys alone.
        #expect(try object(DecisionRecord(decision(.delivered), id: "i", topic: "t", at: 0).json())["attachments"] == nil)
    }

    @Test func notificationTextOnlyWithIncludeText() throws {
        var d = decision(.delivered)
        var content = NotificationContent()
        content.title = "Doorbell"
        content.body = "Alice is at the door"
        d.request = NotificationRequest(id: "i", pushType: .alert, priority: 10, content: content)
        let plain = String(decoding: DecisionRecord(d, id: "i", topic: "t", at: 0).json(), as: UTF8.self)
        #expect(!plain.contains("Alice") && !plain.contains("Doorbell"))
        let debug = try object(DecisionRecord(d, id: "i", topic: "t", at: 0, includeText: true).json())
        #expect(debug["title"] == .string("Doorbell") && debug["body"] == .string("Alice is at the door"))
    }

    @Test func withNobodyWatchingTheFeedDoesNothing() {
        let feed = DecisionFeed(includeText: false, traceTopic: nil)
        #expect(feed.readersAttached == 0)
        for _ in 0..<1000 { feed.offer(topic: "t", id: "i", decision: decision(.delivered), client: nil) }
        #expect(feed.dropped == 0)
    }

    @Test func aSlowReaderMissesEventsAndTheOthersDoNot() throws {
        let feed = DecisionFeed(includeText: false, traceTopic: nil, ringCapacity: 16)
        let slow = try #require(feed.attach())
        let fast = try #require(feed.attach())
        #expect(feed.readersAttached == 2)
        var received = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        for i in 0..<100 {
            feed.offer(topic: "t", id: "\(i)", decision: decision(.delivered), client: nil)
            let r = buffer.withUnsafeMutableBytes { fast.read(into: $0, park: {}) }
            if case .bytes(let n) = r { received += String(decoding: buffer[0..<n], as: UTF8.self).components(separatedBy: "event: decision").count - 1 }
        }
        #expect(received == 100)
        #expect(slow.missed == 100 - 16 && feed.dropped == 100 - 16)
        feed.detach(slow)
        feed.detach(fast)
        #expect(feed.readersAttached == 0)
    }

    @Test func readersAreCapped() {
        let feed = DecisionFeed(includeText: false, traceTopic: nil, ringCapacity: 4)
        let readers = (0..<DecisionFeed.maxReaders).compactMap { _ in feed.attach() }
        #expect(readers.count == DecisionFeed.maxReaders)
        #expect(feed.attach() == nil)
    }

    @Test func anEmptyReaderParksAndIsWokenOnlyWithSomethingToSend() {
        let feed = DecisionFeed(includeText: false, traceTopic: nil)
        let reader = feed.attach()!
        var parked = 0, resumed = 0
        var buffer = [UInt8](repeating: 0, count: 256)
        #expect(buffer.withUnsafeMutableBytes { reader.read(into: $0) { parked += 1 } } == .parked)
        #expect(parked == 1 && reader.isParked)
        #expect(!reader.wakeIfNeeded { resumed += 1 })
        feed.broadcast(DecisionFeed.frame(event: "stats", data: Array("{}".utf8)))
        #expect(reader.wakeIfNeeded { resumed += 1 } && resumed == 1 && !reader.isParked)
        #expect(buffer.withUnsafeMutableBytes { reader.read(into: $0) {} } == .bytes(23))
        #expect(String(decoding: buffer[0..<23], as: UTF8.self) == "event: stats\ndata: {}\n\n")
        reader.close()
        #expect(buffer.withUnsafeMutableBytes { reader.read(into: $0) {} } == .end)
    }
}

@Suite("Dashboard: rate history")
struct RateHistoryTests {
    @Test func keepsTheNewestSamplesOldestFirst() throws {
        var h = RateHistory()
        #expect(String(decoding: h.json(), as: UTF8.self) == "[]")
        var c = Counters()
        for i in 0..<(RateHistory.capacity + 10) {
            c.received = i
            c.delivered = i / 2
            h.append(at: Double(i), c)
        }
        #expect(h.count == RateHistory.capacity)
        guard case .array(let points) = try decodeJSON(h.json()) else { Issue.record("not an array"); return }
        #expect(points.count == RateHistory.capacity)
        #expect(points.first?.jsonText == "[10000,10,5,0,0]")
        #expect(points.last?.jsonText == "[\((RateHistory.capacity + 9) * 1000),\(RateHistory.capacity + 9),\((RateHistory.capacity + 9) / 2),0,0]")
    }
}
