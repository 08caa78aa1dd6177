import Foundation
import Testing
@testable import PushBridge

/// The shared buffers and in-place shortcuts of the per-message path behave like the
/// plain values and long ways they replace.
@Suite("Hot path sharing")
struct HotPathSharingTests {
    static let topics = ["", "/", "a", "a/b/c", "a//b/", "$SYS/x/ドア", "home/front/doorbell"]
    static let positions: [JSONValue] = [
        .int(-5), .int(-4), .int(-3), .int(-2), .int(-1), .int(0), .int(1), .int(2), .int(3), .int(4),
        .int(Int64.min), .int(Int64.max), .double(1), .double(-1), .double(1.5), .double(1e16), .double(.nan),
        .string("1"), .null, .bool(true),
    ]

    @Test("levels[n] read from the topic equals subscripting the levels list", arguments: topics)
    func levelsElement(_ topic: String) throws {
        let context = MessageContext(topic: topic, payload: .null, raw: "")
        for position in Self.positions {
            #expect(context.levelsElement(position) == Node.subscripted(context.value(of: .levels), by: position),
                    "\(topic) [\(position)]")
        }
        #expect(context.levels == topic.split(separator: "/", omittingEmptySubsequences: false).map(String.init))
        let expression = try Expression.parse("levels[1]")
        #expect(expression.evaluate(in: context) == Node.subscripted(context.value(of: .levels), by: .int(1)))
    }

    @Test("content: a copy is independent of the original; equality compares fields")
    func contentCopyOnWrite() {
        var a = NotificationContent()
        a.title = "t"
        var b = a
        b.title = "u"
        b.userInfo = .object(["k": .int(1)])
        #expect(a.title == "t" && b.title == "u")
        #expect(a.userInfo == .object([:]))
        #expect(a != b)
        var c = NotificationContent()
        c.title = "t"
        #expect(a == c)
        #expect(NotificationContent() == NotificationContent())
        #expect(NotificationContent().body == nil)
        // A NaN relevance score is unequal to itself, shared buffer or not.
        var nan = NotificationContent()
        nan.relevanceScore = .nan
        let same = nan
        #expect(nan != same)
    }

    @Test("context: a copy is independent; raw is decoded from the payload bytes on demand")
    func contextCopyOnWrite() {
        let bytes: [UInt8] = Array("{\"a\":1}".utf8) + [0xFF]
        var a = MessageContext(topic: "x/y", payload: .null, rawBytes: bytes, properties: ["p": "v"],
                               route: "r", qos: 1, retain: true, pushType: .alert, priority: 10, now: 5,
                               timeZone: .current)
        #expect(a.raw == String(decoding: bytes, as: UTF8.self))
        var b = a
        var content = NotificationContent()
        content.body = "b"
        b.content = content
        b.topic = "z"
        b.raw = "text"
        #expect(a.content.body == nil && b.content.body == "b")
        #expect(a.topic == "x/y" && b.topic == "z")
        #expect(a.raw == String(decoding: bytes, as: UTF8.self) && b.raw == "text")
        a.priority = 5
        #expect(b.priority == 10 && a.priority == 5)
        #expect(a.properties == ["p": "v"] && a.route == "r" && a.qos == 1 && a.retain && a.now == 5)
    }

    @Test("integers are written as String(_:) writes them")
    func integers() {
        for n: Int64 in [0, 1, -1, 9, 10, -10, 99, 100, 1_234_567_890, Int64.max, Int64.min, Int64.min + 1] {
            #expect(JSONValue.int(n).jsonText == String(n))
        }
    }

    @Test("objects of every size come out sorted by key")
    func objectOrder() {
        var rng = SystemRandomNumberGenerator()
        for size in 0...24 {
            var members: JSONObject = [:]
            while members.count < size {
                let key = String((0..<Int.random(in: 0...4, using: &rng)).map { _ in "aBé\"ドz0".randomElement(using: &rng)! })
                members[key] = .int(Int64(members.count))
            }
            var expected = "{"
            for (i, (key, value)) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                if i > 0 { expected += "," }
                expected += JSONValue.string(key).jsonText + ":" + value.jsonText
            }
            expected += "}"
            #expect(JSONValue.object(members).jsonText == expected)
        }
    }

    @Test("a repeated key keeps its last value, in nested objects and lists of objects too")
    func repeatedKeys() throws {
        let v = try JSONValue.parse(#"{"a":1,"o":{"x":1,"x":3,"i":{"q":1}},"a":2,"l":[{"k":1},{"k":2,"k":5}],"e":{}}"#)
        #expect(v == .object(["a": .int(2), "o": .object(["x": .int(3), "i": .object(["q": .int(1)])]),
                              "l": .array([.object(["k": .int(1)]), .object(["k": .int(5)])]), "e": .object([:])]))
    }

    /// The formatting `Timestamp.iso8601` used before its digit-by-digit path.
    static func referenceISO8601(_ seconds: Double) -> String {
        let milliseconds = Int64((seconds * 1000).rounded())
        var t = time_t(milliseconds.quotientAndRemainder(dividingBy: 1000).quotient
                       - (milliseconds % 1000 < 0 ? 1 : 0))
        let ms = Int(milliseconds - Int64(t) * 1000)
        var parts = tm()
        gmtime_r(&t, &parts)
        func pad(_ v: Int32, _ w: Int) -> String {
            let s = String(v); return String(repeating: "0", count: max(0, w - s.count)) + s
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(ms), 3))Z"
    }

    @Test("ISO 8601 timestamps are the same text as before")
    func timestamps() {
        var samples: [Double] = [0, -0.0005, -0.001, -1.5, 0.0005, 0.999, 0.9996, 1_764_430_938.123,
                                 253_402_300_799.999, 253_402_300_800, -62_167_219_200, -62_167_219_201, 1e12]
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<500 { samples.append(Double.random(in: -1e11...1e11, using: &rng)) }
        for s in samples {
            #expect(Timestamp.iso8601(s) == Self.referenceISO8601(s), "\(s)")
            // Written straight into a JSON document: the bytes the string would give.
            var direct: [UInt8] = [], viaString: [UInt8] = []
            Timestamp.appendQuotedISO8601(s, to: &direct)
            JSONValue.writeString(Self.referenceISO8601(s), into: &viaString)
            #expect(direct == viaString, "\(s)")
        }
        // Runs within one second and across its ends, before 1970 too: the kept text of the
        // last second is used only for that second.
        for base in [1_764_430_938.0, -3_600.0, 0, 253_402_300_799] {
            for offset in [0, 0.0004, 0.0005, 0.001, 0.5, 0.9994, 0.9995, 0.9996, 1, 1.25, 0.25, -0.25, -0.0004, 0] {
                let s = base + offset
                var direct: [UInt8] = [], viaString: [UInt8] = []
                Timestamp.appendQuotedISO8601(s, to: &direct)
                JSONValue.writeString(Self.referenceISO8601(s), into: &viaString)
                #expect(direct == viaString, "\(s)")
            }
        }
    }

    @Test("a route filter 2 000 levels deep builds and matches")
    func deepFilter() {
        let filter = Array(repeating: "a", count: 2_000).joined(separator: "/")
        let table = RouteTable(routes: [RouteConfig(name: "deep", topic: filter + "/#"), RouteConfig(name: "all", topic: "#")])
        #expect(table.match("a/a")?.name == "all")
        #expect(table.match(filter + "/b")?.name == "deep")
        #expect(table.match(filter)?.name == "deep")
    }

    @Test("stats by topic slot count like stats by topic name, overflow included")
    func statsBySlot() {
        let byName = Stats(maxTopics: 2, version: "t", startedAt: 0, clock: { 7 })
        let bySlot = Stats(maxTopics: 2, version: "t", startedAt: 0, clock: { 7 })
        var decisions: [Decision] = []
        var delivered = Decision(outcome: .delivered, route: "r1", rule: "x")
        delivered.modified = true
        decisions.append(delivered)
        var suppressed = Decision(outcome: .suppressed, route: "r2", rule: "x")
        suppressed.decidedBy = "drop-half"
        decisions.append(suppressed)
        decisions.append(Decision(outcome: .suppressed, route: "r2", rule: "x"))
        decisions.append(Decision(outcome: .unrouted, route: nil, rule: "x"))
        for (i, topic) in ["a", "b", "c", "a", "(other)", "d", "b"].enumerated() {
            let decision = decisions[i % decisions.count]
            byName.received(topic: topic)
            byName.finished(topic: topic, decision: decision)
            let slot = bySlot.received(topic: topic, at: 7)
            bySlot.finished(topicSlot: slot, decision: decision)
        }
        #expect(byName.snapshot(now: 9).json() == bySlot.snapshot(now: 9).json())
    }
}
