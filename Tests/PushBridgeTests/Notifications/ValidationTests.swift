import Testing
@testable import PushBridge

@Suite struct ValidationTests {
    func request(_ f: (inout NotificationRequest) -> Void = { _ in }) -> NotificationRequest {
        var r = NotificationRequest(id: "6f1c2b9e-4d3a-4c2b-9a51-2f0e8d7c6b5a", pushType: .alert, priority: 10)
        r.content.body = "hello"
        f(&r)
        return r
    }

    func reason(_ r: NotificationRequest) -> RejectReason? {
        do { try r.validate(); return nil } catch { return error.reason }
    }

    @Test func aValidRequestPasses() { #expect(reason(request()) == nil) }

    @Test func collapseIdAtMost64Bytes() {
        #expect(reason(request { $0.collapseID = String(repeating: "x", count: 64) }) == nil)
        #expect(reason(request { $0.collapseID = String(repeating: "x", count: 65) }) == .badCollapseId)
        // bytes, not characters
        #expect(reason(request { $0.collapseID = String(repeating: "é", count: 33) }) == .badCollapseId)
    }

    @Test func priorities() {
        for p in [10, 5, 1] { #expect(reason(request { $0.priority = p }) == nil) }
        for p in [0, 2, 9, 11, -1] { #expect(reason(request { $0.priority = p }) == .badPriority) }
        #expect(reason(request { $0.pushType = .background; $0.priority = 10 }) == .badPriority)
        #expect(reason(request { $0.pushType = .background; $0.priority = 5 }) == nil)
    }

    @Test func expiration() {
        #expect(reason(request { $0.expiration = 0 }) == nil)
        #expect(reason(request { $0.expiration = -5 }) == .badExpirationDate)
    }

    @Test func messageIds() {
        #expect(reason(request { $0.id = "6F1C2B9E-4D3A-4C2B-9A51-2F0E8D7C6B5A" }) == .badMessageId)
        #expect(reason(request { $0.id = "not-a-uuid" }) == .badMessageId)
        #expect(reason(request { $0.id = "6f1c2b9e4d3a-4c2b-9a51-2f0e8d7c6b5a0" }) == .badMessageId)
        for _ in 0..<100 { #expect(NotificationRequest.isValidID(NotificationRequest.newID())) }
    }

    /// A continuing route's id: made from the message's, the same for a replay, one per route.
    @Test func derivedIDs() {
        let id = "6f1c2b9e-4d3a-4c2b-9a51-2f0e8d7c6b5a"
        let ids = (0..<50).map { NotificationRequest.derivedID(id, index: $0) }
        #expect(ids.allSatisfy(NotificationRequest.isValidID))
        #expect(Set(ids).count == 50)
        #expect(!ids.contains(id))
        #expect(NotificationRequest.derivedID(id, index: 3) == ids[3])
        #expect(NotificationRequest.derivedID("6f1c2b9e-4d3a-4c2b-9a51-2f0e8d7c6b5b", index: 3) != ids[3])
    }

    /// The byte-by-byte rule the word-at-a-time check must agree with.
    static func referenceIsValidID(_ bytes: [UInt8]) -> Bool {
        guard bytes.count == 36 else { return false }
        for (i, b) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(i) {
                if b != UInt8(ascii: "-") { return false }
            } else if !("0"..."9").contains(Character(Unicode.Scalar(b))) && !("a"..."f").contains(Character(Unicode.Scalar(b))) {
                return false
            }
        }
        return true
    }

    @Test func messageIdCheckAgreesWithTheByteRuleForEveryByteAtEveryPlace() {
        let valid = Array("6f1c2b9e-4d3a-4c2b-9a51-2f0e8d7c6b5a".utf8)
        for i in 0..<36 {
            for b in UInt8.min...UInt8.max {
                var bytes = valid
                bytes[i] = b
                let text = String(decoding: bytes, as: UTF8.self)
                // A byte ≥ 0x80 alone is not UTF-8: the string holds U+FFFD (3 bytes), so 38.
                let expected = Self.referenceIsValidID(Array(text.utf8))
                #expect(NotificationRequest.isValidID(text) == expected, "byte \(b) at \(i)")
                #expect(expected == (b < 0x80 && Self.referenceIsValidID(bytes)))
            }
        }
        // Every hex digit at every hex place, the lengths around 36, and a bridged string.
        for i in 0..<36 where ![8, 13, 18, 23].contains(i) {
            for d in "0123456789abcdef".utf8 {
                var bytes = valid
                bytes[i] = d
                #expect(NotificationRequest.isValidID(String(decoding: bytes, as: UTF8.self)))
            }
        }
        for n in [0, 1, 8, 35, 37, 40, 72] {
            let text = String(decoding: (0..<n).map { valid[$0 % 36] }, as: UTF8.self)
            #expect(!NotificationRequest.isValidID(text), "length \(n)")
        }
        #expect(NotificationRequest.isValidID(String(Substring("x6f1c2b9e-4d3a-4c2b-9a51-2f0e8d7c6b5a".dropFirst()))))
    }

    @Test func hexWords() {
        #expect(NotificationRequest.isHexWord(0x3031_3233_3435_3637))
        #expect(NotificationRequest.isHexWord(0x6162_6364_6566_3839))
        for bad: UInt8 in [0x2F, 0x3A, 0x60, 0x67, 0x41, 0x46, 0x00, 0x7F, 0x80, 0xB0, 0xE1, 0xFF] {
            for place in 0..<8 {
                let x = (0x3030_3030_3030_3030 as UInt64) & ~(0xFF << (8 * UInt64(place))) | UInt64(bad) << (8 * UInt64(place))
                #expect(!NotificationRequest.isHexWord(x), "byte \(bad) at \(place)")
            }
        }
    }

    @Test func bodyLimitsMeasuredOnTheAPNsBody() {
        // The body's JSON also carries {"aps":{"alert":{"body":"…"}}}: 4096 bytes of text is too large.
        #expect(reason(request { $0.content.body = String(repeating: "a", count: 4000) }) == nil)
        #expect(reason(request { $0.content.body = String(repeating: "a", count: 4096) }) == .payloadTooLarge)
        #expect(reason(request { $0.pushType = .voip; $0.content.body = String(repeating: "a", count: 5000) }) == nil)
        #expect(reason(request { $0.pushType = .voip; $0.content.body = String(repeating: "a", count: 5120) }) == .payloadTooLarge)
        // escaping counts: a quote is two bytes in JSON
        #expect(reason(request { $0.content.body = String(repeating: "\"", count: 2040) }) == .payloadTooLarge)
    }

    @Test func identifierIsCollapseIdWhenSet() {
        #expect(request().identifier == "6f1c2b9e-4d3a-4c2b-9a51-2f0e8d7c6b5a")
        #expect(request { $0.collapseID = "door" }.identifier == "door")
    }
}

@Suite struct APNsBodyReaderTests {
    func read(_ text: String) throws(Rejection) -> APNsBodyReader.Parsed {
        try APNsBodyReader.read(try! JSONValue.parse(Array(text.utf8)))
    }

    @Test func readsEveryField() throws {
        let p = try read("""
        {"aps":{"alert":{"title":"T","subtitle":"S","body":"B"},"badge":3,"sound":"ping.caf","thread-id":"th",
         "category":"CAT","mutable-content":1,"content-available":1,"target-content-id":"tc",
         "interruption-level":"critical","relevance-score":0.5,"filter-criteria":"work"},"who":"Alice"}
        """)
        #expect(p.content.title == "T" && p.content.subtitle == "S" && p.content.body == "B")
        #expect(p.content.badge == 3 && p.content.sound == "ping.caf" && p.content.threadID == "th")
        #expect(p.content.category == "CAT" && p.content.targetContentID == "tc")
        #expect(p.content.interruptionLevel == "critical" && p.content.relevanceScore == 0.5)
        #expect(p.content.filterCriteria == "work" && p.mutableContent && p.contentAvailable)
        #expect(p.content.userInfo == .object(["who": .string("Alice")]))
    }

    @Test func alertStringIsTheBody() throws {
        let p = try read(#"{"aps":{"alert":"hi","sound":{"name":"bell","critical":1}}}"#)
        #expect(p.content.body == "hi" && p.content.title == nil && p.content.sound == "bell")
        #expect(!p.mutableContent)
    }

    @Test(arguments: [
        #"[1,2]"#, #"{"alert":"no aps"}"#, #"{"aps":"x"}"#, #"{"aps":{"alert":5}}"#,
        #"{"aps":{"badge":"3"}}"#, #"{"aps":{"alert":{"title":1}}}"#, #"{"aps":{"interruption-level":"loud"}}"#,
        #"{"aps":{"relevance-score":2}}"#, #"{"aps":{"sound":7}}"#,
    ])
    func rejectsWhatIsNotAnAPNsBody(_ text: String) {
        #expect(throws: Rejection.self) { try read(text) }
        do { _ = try read(text) } catch { #expect(error.reason == .invalidPayload) }
    }
}
