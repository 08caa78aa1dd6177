import Foundation
import Testing
@testable import PushBridge

/// The shortcuts taken on the per-message path give the same answers as the long way.
@Suite("Hot path shortcuts")
struct HotPathTests {
    static let values: [JSONValue] = [
        .null, .bool(true), .bool(false), .int(0), .int(Int64.min), .int(Int64.max),
        .double(0.1), .double(-1.2345678901234567e-300), .double(.infinity), .double(1e300),
        .string(""), .string("plain"), .string("quote \" backslash \\ tab \t nl \n"),
        .string("\u{01}\u{1F}\u{7F}"), .string("Grüße 🚪 ドア"),
        .array([]), .array([.int(1), .string("\u{0}"), .array([.null])]),
        .object([:]), .object(["b": .int(1), "a": .object(["\"k\n": .string("v\\")]), "é": .bool(false)]),
    ]

    @Test("jsonSizeBound is never below the real size", arguments: values)
    func sizeBound(_ value: JSONValue) {
        #expect(value.jsonSizeBound >= value.jsonText.utf8.count)
    }

    @Test("strings with and without escapes serialize exactly")
    func strings() {
        #expect(JSONValue.string("Alice is at the door").jsonText == #""Alice is at the door""#)
        #expect(JSONValue.string("a\"b\\c\nd\u{01}").jsonText == #""a\"b\\c\nd\u0001""#)
        #expect(JSONValue.string("ドア").jsonText == "\"ドア\"")
        #expect(JSONValue.string("").jsonText == #""""#)
        // A bridged or sliced string takes the same path.
        let sub = "xx\"yy"[...]
        #expect(JSONValue.string(String(sub)).jsonText == #""xx\"yy""#)
    }

    @Test("object members come out sorted by key")
    func sortedObject() {
        let v = JSONValue.object(["b": .int(2), "a": .int(1), "c": .object(["z": .null, "y": .bool(true)])])
        #expect(v.jsonText == #"{"a":1,"b":2,"c":{"y":true,"z":null}}"#)
    }

    static func request(_ content: NotificationContent, pushType: PushType? = .alert) -> NotificationRequest {
        NotificationRequest(id: "6f1c2b9e-4d3a-4c2b-9a51-2f0e8d7c6b5a", pushType: pushType, priority: 10,
                            mutableContent: true, contentAvailable: true, content: content)
    }

    static var contents: [NotificationContent] {
        var empty = NotificationContent()
        empty.userInfo = .null
        var full = NotificationContent()
        full.title = "Doorbell \"front\""
        full.subtitle = "\u{02}"
        full.body = String(repeating: "\\", count: 50)
        full.sound = "default"
        full.badge = -3
        full.threadID = "doorbell"
        full.category = "DOORBELL"
        full.interruptionLevel = "time-sensitive"
        full.relevanceScore = 0.123456789
        full.targetContentID = "t"
        full.filterCriteria = "f"
        full.userInfo = .object(["who": .string("Alice"), "aps": .string("dropped"), "n": .array([.int(1), .double(2.5)])])
        var text = NotificationContent()
        text.body = "x"
        text.userInfo = .string("not an object")
        return [empty, full, text]
    }

    @Test("apnsBodySizeBound is never below the real body size", arguments: contents)
    func bodyBound(_ content: NotificationContent) {
        let r = Self.request(content)
        #expect(r.apnsBodySizeBound >= r.apnsBody.jsonText.utf8.count)
    }

    /// The payload as `user_info` (the default `{{ payload }}`): its size bound comes from the
    /// parse (`JSONValue.parse(_:serializedSizeBound:)`), and the decision at the 4 096-byte
    /// limit is the exact size's, whatever the payload's white space and number spelling.
    @Test("the payload's size bound decides nothing wrong at the APNs limit")
    func payloadBoundAtTheLimit() throws {
        let config = try loadConfig("routes:\n  - topic: a\n    alert:\n      body: x\n")
        var accepted = 0, refused = 0
        for length in stride(from: 3_950, through: 4_100, by: 3) {
            let fill = String(repeating: "y", count: length)
            for payload in ["{\"k\":\"\(fill)\"}", "{ \"k\" : \"\(fill)\" ,\n \"n\": 1e5 }",
                            "{\"k\":\"\(fill.prefix(length - 600))\",\"s\":\"" + String(repeating: "\\u00e9", count: 100) + "\"}",
                            "{\"k\":\"\(fill.prefix(3000))\"" + String(repeating: " ", count: 1_500) + "}"] {
                let mapped = RequestMapper().map(InboundMessage(topic: "a", payload: Array(payload.utf8), receivedAt: 0),
                                                 route: config.routes[0], id: "6f1c2b9e-4d3a-4c2b-9a51-2f0e8d7c6b5a", now: 0)
                switch mapped.request {
                case .success(let r):
                    accepted += 1
                    #expect(r.content.userInfoSizeBound != nil, "the bound was known")
                    #expect(r.apnsBody.jsonText.utf8.count <= 4096, "accepted only when it fits: \(payload.prefix(40))")
                case .failure(let e):
                    refused += 1
                    #expect(e.reason == .payloadTooLarge, "\(e)")
                }
            }
        }
        #expect(accepted > 0 && refused > 0, "both sides of the limit: \(accepted) accepted, \(refused) refused")
        // A `user_info:` template of its own: no bound from the parse.
        let own = try loadConfig("routes:\n  - topic: a\n    user_info: \"{{ payload.k }}\"\n    alert:\n      body: x\n")
        let mapped = RequestMapper().map(InboundMessage(topic: "a", payload: Array(#"{"k":{"a":1}}"#.utf8), receivedAt: 0),
                                         route: own.routes[0], id: "6f1c2b9e-4d3a-4c2b-9a51-2f0e8d7c6b5a", now: 0)
        #expect(try mapped.request.get().content.userInfoSizeBound == nil)
        // Set again (a filter's `set user_info`): the bound is gone with the value it described.
        var content = try RequestMapper().map(InboundMessage(topic: "a", payload: Array(#"{"k":1}"#.utf8), receivedAt: 0),
                                              route: config.routes[0], id: "6f1c2b9e-4d3a-4c2b-9a51-2f0e8d7c6b5a",
                                              now: 0).request.get().content
        #expect(content.userInfoSizeBound == 7)
        content.userInfo = .object(["k": .string(String(repeating: "z", count: 5000))])
        #expect(content.userInfoSizeBound == nil)
    }

    @Test("validation still measures the exact size when the bound is over the limit")
    func exactSizeFallback() throws {
        // 1 000 quotes: the bound (6 bytes each) passes 4 096, the real body (2 each) does not.
        var content = NotificationContent()
        content.body = String(repeating: "\"", count: 1000)
        let near = Self.request(content)
        #expect(near.apnsBodySizeBound > 4096)
        #expect(throws: Never.self) { try near.validate() }
        // 3 000 quotes: 6 000 bytes, really too large.
        content.body = String(repeating: "\"", count: 3000)
        #expect(throws: Rejection.self) { try Self.request(content).validate() }
        do {
            try Self.request(content).validate()
        } catch {
            #expect(error.reason == .payloadTooLarge)
        }
        // Small bodies pass on the bound alone.
        content.body = "hello"
        #expect(Self.request(content).apnsBodySizeBound <= 4096)
        #expect(throws: Never.self) { try Self.request(content).validate() }
    }

    @Test("xoshiro256** gives the reference sequence for the seed 1, 2, 3, 4")
    func xoshiroReference() {
        let g = IDGenerator(seed: (1, 2, 3, 4))
        let (a, b) = g.next128()
        let (c, d) = g.next128()
        #expect([a, b, c, d] == [11520, 0, 1_509_978_240, 1_215_971_899_390_074_240])
    }

    @Test("an all-zero seed still gives random bits")
    func zeroSeed() {
        let g = IDGenerator(seed: (0, 0, 0, 0))
        let outputs = (0..<4).map { _ in g.next128() }
        #expect(outputs.contains { $0.0 != 0 || $0.1 != 0 })
    }

    @Test("uuidString sets the version and variant bits")
    func uuidBits() {
        #expect(NotificationRequest.uuidString(high: 0, low: 0) == "00000000-0000-4000-8000-000000000000")
        #expect(NotificationRequest.uuidString(high: .max, low: .max) == "ffffffff-ffff-4fff-bfff-ffffffffffff")
        #expect(NotificationRequest.uuidString(high: 0x0123_4567_89AB_CDEF, low: 0xFEDC_BA98_7654_3210)
                == "01234567-89ab-4def-bedc-ba9876543210")
    }

    @Test("uuidString gives Foundation's text of the same 128 bits, version and variant set")
    func uuidAgainstFoundation() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let high = rng.next() as UInt64, low = rng.next() as UInt64
            let h = (high & ~0xF000) | 0x4000
            let l = (low & ~0xC000_0000_0000_0000) | 0x8000_0000_0000_0000
            var bytes = [UInt8](repeating: 0, count: 16)
            for i in 0..<8 {
                bytes[i] = UInt8(truncatingIfNeeded: h >> (56 - 8 * i))
                bytes[8 + i] = UInt8(truncatingIfNeeded: l >> (56 - 8 * i))
            }
            let uuid = UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                                   bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
            #expect(NotificationRequest.uuidString(high: high, low: low) == uuid.uuidString.lowercased())
        }
    }

    @Test("newID gives valid, distinct ids")
    func newIDs() {
        let ids = (0..<2000).map { _ in NotificationRequest.newID() }
        #expect(Set(ids).count == ids.count)
        for id in ids {
            #expect(NotificationRequest.isValidID(id))
            let u = Array(id.utf8)
            #expect(u[14] == UInt8(ascii: "4"))
            #expect("89ab".utf8.contains(u[19]))
        }
    }
}
