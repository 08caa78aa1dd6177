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
