import Foundation
import Testing
@testable import PushBridge

/// PushSubscription JSON, the payload the service worker reads, and both subscription stores.
@Suite("Web Push subscriptions")
struct SubscriptionTests {
    /// The shape `PushSubscription.toJSON()` returns (Push API, W3C; MDN's example), keys from
    /// RFC 8291 Appendix A so they are a real point and a real 16-byte secret.
    static let browserJSON = """
        {"endpoint":"https://updates.push.services.mozilla.com/wpush/v2/gAAAAABk","expirationTime":null,
         "keys":{"p256dh":"BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
                 "auth":"BTBZMqHH6r4Tts7J_aSIgg"}}
        """

    @Test func parsesTheBrowsersJSON() throws {
        let s = try WebPushSubscription.parse(Array(Self.browserJSON.utf8)).get()
        #expect(s.endpoint == "https://updates.push.services.mozilla.com/wpush/v2/gAAAAABk")
        #expect(s.p256dh.count == 65 && s.auth.count == 16 && s.expirationTime == nil)
        let again = try WebPushSubscription.parse(s.json).get()
        #expect(again == s)
        let expiring = Self.browserJSON.replacingOccurrences(of: "\"expirationTime\":null", with: "\"expirationTime\":1764600000000")
        #expect(try WebPushSubscription.parse(Array(expiring.utf8)).get().expirationTime == 1_764_600_000_000)
    }

    @Test(arguments: [
        ("[]", "the body must be a JSON object"),
        ("{", "the body is not JSON"),
        (#"{"keys":{}}"#, "'endpoint' must be a string"),
        (#"{"endpoint":"ftp://x/y","keys":{}}"#, "'endpoint' must be an http or https URL with a host"),
        (#"{"endpoint":"https://x/ y","keys":{}}"#, "'endpoint' must not contain spaces or control characters"),
        (#"{"endpoint":"https://x/y","expirationTime":"soon","keys":{}}"#, "'expirationTime' must be a number or null"),
        (#"{"endpoint":"https://x/y"}"#, "'keys' must be an object with 'p256dh' and 'auth'"),
        (#"{"endpoint":"https://x/y","keys":{"p256dh":"AAAA","auth":"BTBZMqHH6r4Tts7J_aSIgg"}}"#, "'keys.p256dh' must be base64url of a 65-byte"),
        (#"{"endpoint":"https://x/y","keys":{"p256dh":"BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs8Vd8pZGH6SRpkNtoIAiw4","auth":"BTBZMqHH6r4Tts7J_aSIgg"}}"#, "'keys.p256dh' is not a point on P-256"),
        (#"{"endpoint":"https://x/y","keys":{"p256dh":"BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4","auth":"BTBZ"}}"#, "'keys.auth' must be base64url of 16 bytes"),
    ])
    func refuses(json: String, problem: String) {
        guard case .failure(let p) = WebPushSubscription.parse(Array(json.utf8)) else {
            Issue.record("accepted: \(json)")
            return
        }
        #expect(p.description.hasPrefix(problem), "\(p)")
    }

    @Test func anEndpointTooLongIsRefused() {
        let long = "https://x/" + String(repeating: "a", count: WebPushSubscription.maximumEndpointLength)
        #expect(WebPushSubscription.endpointProblem(long) != nil)
    }

    /// A display message like the example of docs/formats.md ("Display message") as the service worker payload.
    @Test func theAlertPayload() throws {
        let display = """
            {"id":"6f1c2b9e-4d3a-4c2b-9a51-2f0e8d7c6b5a","source_topic":"home/front/doorbell","route":"doorbell",
             "push_type":"alert","priority":10,"collapse_id":"doorbell-front","title":"Doorbell","subtitle":"front",
             "body":"Alice is at the door","interruption_level":"time-sensitive","user_info":{"who":"Alice","url":"/cameras/front"},
             "modified":false,"received_at":"2026-11-29T15:42:18.123Z"}
            """
        let payload = try #require(WebPushPayload.from(display: Array(display.utf8)))
        #expect(String(decoding: payload, as: UTF8.self) == #"{"type":"alert","title":"Doorbell","body":"front\nAlice is at the door","tag":"doorbell-front","data":{"id":"6f1c2b9e-4d3a-4c2b-9a51-2f0e8d7c6b5a","route":"doorbell","url":"/cameras/front"}}"#)
        let critical = try #require(WebPushPayload.from(display: Array(#"{"title":"Leak","body":"kitchen","interruption_level":"critical","user_info":{"url":"javascript:alert(1)"}}"#.utf8)))
        #expect(String(decoding: critical, as: UTF8.self) == #"{"type":"alert","title":"Leak","body":"kitchen","require_interaction":true,"data":{}}"#)
        let passive = try #require(WebPushPayload.from(display: Array(#"{"title":"t","interruption_level":"passive","user_info":{"url":"https://example.com/x"}}"#.utf8)))
        #expect(String(decoding: passive, as: UTF8.self) == #"{"type":"alert","title":"t","body":"","silent":true,"data":{"url":"https://example.com/x"}}"#)
        #expect(WebPushPayload.from(display: Array("[1]".utf8)) == nil)
    }

    /// A condition's withdraw (the display-topic JSON a clear with `on_clear: withdraw` publishes).
    @Test func theWithdrawPayload() throws {
        let withdraw = #"{"type":"withdraw","alert_id":"a1","collapse_id":"leak-kitchen","source_topic":"zigbee2mqtt/kitchen","route":"leak","reason":"cleared"}"#
        let payload = try #require(WebPushPayload.from(display: Array(withdraw.utf8)))
        #expect(String(decoding: payload, as: UTF8.self) == #"{"type":"withdraw","tag":"leak-kitchen","data":{"id":"a1","route":"leak"}}"#)
        #expect(WebPushPayload.from(display: Array(#"{"type":"withdraw","alert_id":"a1"}"#.utf8)) == nil, "nothing to close without a tag")
    }

    @Test func aLongBodyIsShortenedToFitOnePushMessage() throws {
        let body = String(repeating: "water \u{1F4A7} ", count: 2000)
        let payload = WebPushPayload.alert(title: "Leak", body: body, tag: "t", id: "i", route: "r", url: nil)
        #expect(payload.count <= PayloadEncryption.maximumPlaintext)
        let parsed = try JSONValue.parse(payload)
        let shown = try #require(parsed["body"]?.stringValue)
        #expect(shown.hasSuffix("…") && body.hasPrefix(String(shown.dropLast())))
        #expect(payload.count > PayloadEncryption.maximumPlaintext - 64, "shortened no more than needed")
    }

    @Test("the first picture's URL as image; the payload stays within one push message")
    func webPushImage() throws {
        let url = "https://home.example.com/attachments/0123456789abcdef0123456789abcdef/snapshot.jpg"
        func payload(body: String, attachments: String) throws -> JSONValue {
            let display = #"{"id":"i","route":"r","title":"Doorbell","body":"\#(body)","attachments":\#(attachments)}"#
            let bytes = try #require(WebPushPayload.from(display: Array(display.utf8)))
            #expect(bytes.count <= PayloadEncryption.maximumPlaintext)
            return try JSONValue.parse(bytes)
        }
        let clip = #"{"identifier":"clip","type":"video/mp4","size":9,"url":"https://home.example.com/attachments/0123456789abcdef0123456789abcdef/clip.mp4"}"#
        let picture = #"{"identifier":"snapshot","type":"image/jpeg","size":9,"url":"\#(url)"}"#
        #expect(try payload(body: "Alice", attachments: "[\(clip),\(picture)]")["image"] == .string(url))
        #expect(try payload(body: "Alice", attachments: "[\(clip)]")["image"] == nil, "not a picture")
        #expect(try payload(body: "Alice", attachments: #"[{"identifier":"s","type":"image/png","size":1}]"#)["image"] == nil, "no URL")
        // A long body is shortened around the whole URL.
        let long = try payload(body: String(repeating: "x", count: 5000), attachments: "[\(picture)]")
        #expect(long["image"] == .string(url))
        #expect(long["body"]?.stringValue?.hasSuffix("…") == true)
        // A URL that cannot fit even beside an empty body is left out, and the text kept.
        let huge = "https://home.example.com/" + String(repeating: "a", count: 4000) + ".jpg"
        let without = try payload(body: "Alice", attachments: #"[{"identifier":"s","type":"image/jpeg","size":1,"url":"\#(huge)"}]"#)
        #expect(without["image"] == nil && without["body"] == .string("Alice"))
    }

    @Test func aTitleTooLongForOneMessageEndsTheShortening() throws {
        let payload = WebPushPayload.alert(title: String(repeating: "t", count: 5000), body: "b", tag: nil, id: "i", route: "r",
                                           url: nil, image: "https://home.example.com/attachments/x/s.jpg")
        let parsed = try JSONValue.parse(payload)
        #expect(parsed["body"] == .string("…") && parsed["image"] == nil)
    }

    func subscription(_ n: Int) throws -> WebPushSubscription {
        WebPushSubscription(endpoint: "https://push.example.net/\(n)", p256dh: try P256Key.generate().publicPoint,
                            auth: [UInt8](repeating: UInt8(n), count: 16), expirationTime: n % 2 == 0 ? nil : Int64(n))
    }

    func exercise(_ store: any SubscriptionStore) throws {
        #expect(try store.all().isEmpty)
        let one = try subscription(1), two = try subscription(2)
        #expect(try store.upsert(one) == .added)
        #expect(try store.upsert(two) == .added)
        let newKeys = WebPushSubscription(endpoint: one.endpoint, p256dh: two.p256dh, auth: two.auth, expirationTime: 99)
        #expect(try store.upsert(newKeys) == .replaced, "upsert by endpoint")
        #expect(try store.all() == [newKeys, two], "kept in the order first added")
        #expect(try store.upsert(try subscription(3)) == .full, "the limit (3 here) counts the new one")
        #expect(try store.remove(endpoint: two.endpoint))
        #expect(try !store.remove(endpoint: two.endpoint))
        #expect(try store.all() == [newKeys])
    }

    @Test func theMemoryStore() throws {
        try exercise(MemorySubscriptionStore(limit: 2))
    }

    @Test func theJournalStoreKeepsSubscriptionsAcrossARestart() throws {
        let dir = NSTemporaryDirectory() + "pushbridge-subs-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var config = JournalConfig()
        config.path = dir
        do {
            let journal = try Journal(config: config)
            try exercise(try JournalSubscriptionStore(journal: journal, output: "browsers", limit: 2))
            let other = try JournalSubscriptionStore(journal: journal, output: "other", limit: 2)
            #expect(try other.all().isEmpty, "each output has its own list")
            #expect(try other.upsert(try subscription(7)) == .added)
        }
        let reopened = try Journal(config: config)
        let kept = try JournalSubscriptionStore(journal: reopened, output: "browsers").all()
        #expect(kept.count == 1 && kept[0].endpoint == "https://push.example.net/1" && kept[0].expirationTime == 99)
        #expect(try JournalSubscriptionStore(journal: reopened, output: "other").all().map(\.auth) == [[UInt8](repeating: 7, count: 16)])
    }
}
