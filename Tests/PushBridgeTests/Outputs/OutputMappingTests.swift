import Foundation
import Testing
@testable import PushBridge

/// The ntfy and webhook mappings, on the display message of the README's "Display message".
@Suite struct OutputMappingTests {
    /// The display message example of the README's "Display message", with a click URL in `user_info`.
    static let display = #"""
        {"id":"6f1c2b9e-4d3a-4c2b-9a51-2f0e8d7c6b5a","source_topic":"home/front/doorbell",
         "route":"doorbell","push_type":"alert","priority":10,"collapse_id":"doorbell-front",
         "title":"Doorbell","subtitle":"front","body":"Alice is at the door","sound":"default",
         "badge":1,"thread_id":"doorbell","category":"DOORBELL","interruption_level":"time-sensitive",
         "user_info":{"who":"Alice","url":"https://cam.example.com/front"},"modified":false,"received_at":"2026-11-29T15:42:18.123Z"}
        """#

    static func message(_ text: String = display) throws -> OutputMessage {
        try #require(OutputMessage(json: Array(text.utf8)))
    }

    /// An ntfy publish as sent (the verdict reads its method).
    static let post = ServiceRequest(method: "POST", url: "http://n/t")

    static func header(_ r: ServiceRequest, _ name: String) -> String? {
        r.headers.last { $0.name.lowercased() == name.lowercased() }?.value
    }

    @Test func ntfyAlert() throws {
        var config = NtfyConfig(url: "https://ntfy.example.com/home")
        config.token = "tk_abc"
        let r = try #require(NtfyOutput(config: config).request(for: try Self.message(), target: ""))
        #expect(r.method == "POST")
        #expect(r.url == "https://ntfy.example.com/home")
        #expect(String(decoding: r.body, as: UTF8.self) == "Alice is at the door")
        #expect(Self.header(r, "X-Title") == "Doorbell")
        #expect(Self.header(r, "X-Priority") == "4")
        #expect(Self.header(r, "X-Tags") == "DOORBELL")
        #expect(Self.header(r, "X-Click") == "https://cam.example.com/front")
        #expect(Self.header(r, "X-Sequence-ID") == "doorbell-front")
        #expect(Self.header(r, "Authorization") == "Bearer tk_abc")
    }

    @Test(arguments: [("passive", 2), ("active", 3), ("time-sensitive", 4), ("critical", 5), (nil, 3), ("bogus", 3)] as [(String?, Int)])
    func ntfyPriority(level: String?, priority: Int) {
        #expect(NtfyOutput.priority(for: level) == priority)
    }

    @Test func ntfyLeavesOutWhatIsAbsentOrUnsafe() throws {
        let m = try Self.message(#"{"id":"x","route":"r","title":"","body":"b","collapse_id":"has space","user_info":{"url":"javascript:alert(1)"}}"#)
        let r = try #require(NtfyOutput(config: NtfyConfig(url: "http://n/t")).request(for: m, target: ""))
        #expect(Self.header(r, "X-Title") == nil)
        #expect(Self.header(r, "X-Tags") == nil)
        #expect(Self.header(r, "X-Click") == nil, "only http(s) URLs are click targets")
        #expect(Self.header(r, "X-Sequence-ID") == nil, "ntfy sequence ids are 1-64 of A-Za-z0-9_-")
        #expect(Self.header(r, "Authorization") == nil)
        #expect(Self.header(r, "X-Priority") == "3")
    }

    @Test func ntfyHeadersEncodeNonASCII() {
        #expect(NtfyOutput.headerValue("Tür offen") == "=?UTF-8?B?VMO8ciBvZmZlbg==?=")
        #expect(NtfyOutput.headerValue("plain") == "plain")
        #expect(NtfyOutput.headerValue("two\nlines") == "two lines")
        #expect(NtfyOutput.sequenceID(String(repeating: "a", count: 64)) != nil)
        #expect(NtfyOutput.sequenceID(String(repeating: "a", count: 65)) == nil)
        #expect(NtfyOutput.sequenceID("") == nil)
    }

    @Test func ntfyWithdrawDeletesBySequenceIDUntilTheServerShowsItCannot() throws {
        let ntfy = NtfyOutput(config: NtfyConfig(url: "https://ntfy.example.com/home/"))
        let item = OutputItem(withdrawal: Withdrawal(alertID: "6f1c2b9e", collapseID: "leak-kitchen", sourceTopic: "zigbee2mqtt/kitchen", route: "leak"))
        let w = try Self.message(String(decoding: item.json, as: UTF8.self))
        #expect(w.isWithdraw)
        let r = try #require(ntfy.request(for: w, target: ""))
        #expect(r.method == "DELETE")
        #expect(r.url == "https://ntfy.example.com/home/leak-kitchen")
        // Debian's 2.11 answers 404 to that path: skipped, and no further withdraw is tried.
        let notFound = ServiceResponse(status: 404, headers: [:], body: Array(#"{"code":40401,"http":404,"error":"page not found"}"#.utf8), version: "1.1")
        #expect(ntfy.verdict(for: notFound, to: r, message: w, target: "") == .skipped("ntfy 404: this server cannot delete by sequence id"))
        #expect(ntfy.request(for: w, target: "") == nil)
        // A withdraw without a usable collapse id has nothing to name.
        let bare = try Self.message(String(decoding: OutputItem(withdrawal: Withdrawal(alertID: "a", collapseID: "", sourceTopic: "t", route: "r")).json, as: UTF8.self))
        #expect(NtfyOutput(config: NtfyConfig(url: "http://n/t")).request(for: bare, target: "") == nil)
    }

    @Test func ntfyLearnsSequenceSupportFromThePublishAnswer() throws {
        let m = try Self.message()
        let old = NtfyOutput(config: NtfyConfig(url: "http://n/t"))
        // ntfy 2.11's answer (as the test server printed it): no sequence_id.
        let answer211 = #"{"id":"8rz6GSVJwzPW","time":1796155713,"expires":1796198913,"event":"message","topic":"t","title":"Doorbell","message":"Alice is at the door","priority":4,"tags":["DOORBELL"]}"#
        #expect(old.verdict(for: ServiceResponse(status: 200, headers: [:], body: Array(answer211.utf8), version: "1.1"), to: Self.post, message: m, target: "") == .delivered)
        #expect(old.sequenceSupport.withLock { $0 } == false)
        let new = NtfyOutput(config: NtfyConfig(url: "http://n/t"))
        let answer216 = #"{"id":"abc","time":1,"event":"message","topic":"t","sequence_id":"doorbell-front","message":"m"}"#
        #expect(new.verdict(for: ServiceResponse(status: 200, headers: [:], body: Array(answer216.utf8), version: "2"), to: Self.post, message: m, target: "") == .delivered)
        #expect(new.sequenceSupport.withLock { $0 } == true)
    }

    @Test func webhookDefaultBodyIsTheDisplayJSON() throws {
        let hook = WebhookOutput(config: WebhookConfig(url: "http://127.0.0.1:1/h"))
        let m = try Self.message()
        let r = try #require(hook.request(for: m, target: ""))
        #expect(r.method == "POST")
        #expect(r.body == Array(Self.display.utf8))
        #expect(Self.header(r, "Content-Type") == "application/json")
    }

    @Test func webhookTemplateSeesTheMessage() throws {
        var config = WebhookConfig(url: "http://127.0.0.1:1/h")
        config.method = "PUT"
        config.headers = [("X-Key", "k1"), ("content-type", "application/x-custom")]
        config.body = try Template.parse(#"{"text":"{{ message.title }}: {{ message.body }} ({{ route }}, {{ topic }}, {{ message.user_info.who }})"}"#)
        let r = try #require(WebhookOutput(config: config).request(for: try Self.message(), target: ""))
        #expect(r.method == "PUT")
        #expect(String(decoding: r.body, as: UTF8.self) == #"{"text":"Doorbell: Alice is at the door (doorbell, home/front/doorbell, Alice)"}"#)
        #expect(r.headers.map(\.name) == ["X-Key", "content-type"], "the configured content type, no second one")
        // A withdraw goes the same way: `message` is the withdraw JSON.
        let w = try Self.message(String(decoding: OutputItem(withdrawal: Withdrawal(alertID: "id1", collapseID: "c", sourceTopic: "s", route: "leak")).json, as: UTF8.self))
        config.body = try Template.parse("{{ message.type }} {{ message.alert_id }} {{ message.reason }}")
        #expect(String(decoding: try #require(WebhookOutput(config: config).request(for: w, target: "")).body, as: UTF8.self) == "withdraw id1 cleared")
    }

    @Test func withdrawItemIsSection12sJSON() throws {
        let item = OutputItem(withdrawal: Withdrawal(alertID: "a1", collapseID: "leak-k", sourceTopic: "z/k", route: "leak"))
        #expect(String(decoding: item.json, as: UTF8.self)
                == #"{"type":"withdraw","alert_id":"a1","collapse_id":"leak-k","source_topic":"z/k","route":"leak","reason":"cleared"}"#)
        #expect(item.key == "a1/withdraw")
        #expect(item.kind == .withdraw)
    }

    @Test(arguments: [(200, DeliveryVerdict.delivered), (204, .delivered), (400, .rejected), (401, .rejected), (404, .rejected),
                      (408, .retry(after: nil)), (429, .retry(after: nil)), (500, .retry(after: nil)), (503, .retry(after: nil)),
                      (301, .rejected)])
    func standardVerdicts(status: Int, verdict: DeliveryVerdict) {
        #expect(WebhookOutput.standardVerdict(ServiceResponse(status: status, headers: [:], body: [], version: "1.1"), now: 0) == verdict)
    }

    @Test func retryAfterSecondsAndDates() {
        // RFC 9110 10.2.3's examples.
        #expect(RetryAfter.seconds("120", now: 0) == 120)
        let now = 946_684_799.0 - 30  // 30 s before Fri, 31 Dec 1999 23:59:59 GMT
        #expect(RetryAfter.seconds("Fri, 31 Dec 1999 23:59:59 GMT", now: now) == 30)
        #expect(RetryAfter.seconds("Friday, 31-Dec-99 23:59:59 GMT", now: now) == 30)
        #expect(RetryAfter.seconds("Fri Dec 31 23:59:59 1999", now: now) == 30)
        #expect(RetryAfter.seconds("Fri, 31 Dec 1999 23:59:59 GMT", now: now + 100) == 0, "a date in the past: at once")
        #expect(RetryAfter.seconds("99999999", now: 0) == RetryAfter.longest)
        #expect(RetryAfter.seconds("soon", now: 0) == nil)
        #expect(RetryAfter.seconds("-5", now: 0) == nil)
        #expect(WebhookOutput.standardVerdict(ServiceResponse(status: 429, headers: ["retry-after": "7"], body: [], version: "1.1"), now: 0) == .retry(after: 7))
    }

    @Test func backoffDoublesToFiveMinutes() {
        #expect(RetryAfter.backoff(attempt: 1, random: 0) == 1)
        #expect(RetryAfter.backoff(attempt: 2, random: 0) == 2)
        #expect(RetryAfter.backoff(attempt: 5, random: 0) == 16)
        #expect(RetryAfter.backoff(attempt: 30, random: 0) == 300)
        #expect(RetryAfter.backoff(attempt: 1, random: 0.999) < 1.2)
    }

    @Test func detailIsTheFirst200BytesCutAtACharacter() {
        #expect(OutputWorker.prefix(Array("short".utf8)) == "short")
        let long = String(repeating: "a", count: 199) + "é" + "tail"
        #expect(OutputWorker.prefix(Array(long.utf8)) == String(repeating: "a", count: 199))
        #expect(OutputWorker.prefix(Array(String(repeating: "b", count: 300).utf8)).utf8.count == 200)
    }

    @Test func workQueueReleasesRetriesWhenDue() {
        var q = WorkQueue()
        func d(_ key: String, _ row: Int64, due: Double = 0) -> PendingDelivery {
            var x = PendingDelivery(row: row, key: key, target: "", item: [], created: 0)
            x.due = due
            return x
        }
        q.append(contentsOf: [d("a", 1), d("b", 2)])
        #expect(q.popReady()?.key == "a")
        q.wait(d("c", 0, due: 10))
        q.wait(d("z", 3, due: 5))
        #expect(q.nextDue == 5)
        #expect(q.count == 3)
        q.releaseDue(now: 6)
        #expect(q.popReady()?.key == "b")
        #expect(q.popReady()?.key == "z")
        #expect(q.popReady() == nil)
        #expect(q.nextDue == 10 && q.count == 1)
    }
}
