import Foundation
import Testing
@testable import PushBridge

/// What the outputs do with an alert's attachments, without a server: ntfy's upload and its
/// fallback to the link, the stored file found (or not) when the delivery is sent, the journal
/// keeping the files beside the item, a webhook template's `message.attachments`.
@Suite struct OutputAttachmentTests {
    static let png = AttachmentGatherTests.png

    /// A store with one picture (`snapshot` of a request), and the display message naming it.
    struct Stored {
        let store: AttachmentStore
        let key: String
        let url: String

        init(size: Int? = nil) throws {
            store = try AttachmentStore(directory: AttachmentService.temporaryDirectory(), keep: .seconds(3600),
                                        totalBytes: 1 << 20, temporary: true)
            let token = AttachmentStore.newToken()
            let item = try store.put(token: token, identifier: "snapshot", media: .png, bytes: OutputAttachmentTests.png)
            key = try #require(AttachmentStore.key(ofFile: item.path))
            url = "http://127.0.0.1:9464/attachments/\(token)/snapshot.png"
        }

        var files: AttachmentFiles { AttachmentFiles { [store] in store.file(forKey: $0) } }

        /// The README's doorbell display message with this picture (`size` as the item says).
        func message(body: String = "Alice is at the door", size: Int = OutputAttachmentTests.png.count,
                     withURL: Bool = true, files: [String]? = nil) throws -> OutputMessage {
            var attachment: JSONObject = ["identifier": .string("snapshot"), "type": .string("image/png"), "size": .int(Int64(size))]
            if withURL { attachment["url"] = .string(url) }
            guard case .object(var o) = try JSONValue.parse(OutputMappingTests.display) else { throw ProcessError(description: "display") }
            o["body"] = .string(body)
            o["attachments"] = .array([.object(attachment)])
            var json: [UInt8] = []
            JSONValue.object(o).write(into: &json)
            return try #require(OutputMessage(json: json, files: files ?? [key]))
        }
    }

    static func header(_ r: ServiceRequest, _ name: String) -> String? { OutputMappingTests.header(r, name) }

    static func answer(_ status: Int, _ body: String) -> ServiceResponse {
        ServiceResponse(status: status, headers: [:], body: Array(body.utf8), version: "1.1")
    }

    @Test("the store's key of a file and the file of a key; gone once past keep")
    func storeKeys() throws {
        let s = try Stored()
        #expect(s.key.hasSuffix("/snapshot.png") && s.key.count == 32 + 1 + "snapshot.png".count)
        #expect(s.store.file(forKey: s.key).map { FileManager.default.contents(atPath: $0).map(Array.init) } == Self.png)
        #expect(AttachmentStore.key(ofFile: "/tmp/not-a-token/snapshot.png") == nil)
        #expect(s.store.file(forKey: AttachmentStore.newToken() + "/snapshot.png") == nil)
        #expect(s.store.file(forKey: "../../etc/passwd") == nil)
        let expired = try AttachmentStore(directory: s.store.directory, keep: .zero, totalBytes: 1 << 20, temporary: false,
                                          clock: { Date().timeIntervalSince1970 + 10 })
        #expect(expired.file(forKey: s.key) == nil)
    }

    @Test("ntfy uploads the first attachment: PUT with the bytes, Filename, the message in X-Message")
    func ntfyUpload() throws {
        let s = try Stored()
        let ntfy = NtfyOutput(name: "phones", config: NtfyConfig(url: "https://ntfy.example.com/home"), files: s.files)
        let r = try #require(ntfy.request(for: try s.message(body: "Alice is at the door\nfront camera — Grüße"), target: ""))
        #expect(r.method == "PUT" && r.url == "https://ntfy.example.com/home")
        #expect(r.body == Self.png)
        #expect(Self.header(r, "Filename") == "snapshot.png")
        #expect(Self.header(r, "Content-Type") == "image/png")
        #expect(Self.header(r, "X-Title") == "Doorbell")
        #expect(Self.header(r, "X-Priority") == "4" && Self.header(r, "X-Tags") == "DOORBELL")
        #expect(Self.header(r, "X-Click") == "https://cam.example.com/front")
        // Line breaks and non-ASCII kept: an RFC 2047 word, which ntfy decodes.
        let word = try #require(Self.header(r, "X-Message"))
        #expect(word.hasPrefix("=?UTF-8?B?") && word.hasSuffix("?="))
        let decoded = Data(base64Encoded: String(word.dropFirst(10).dropLast(2))).map { String(decoding: $0, as: UTF8.self) }
        #expect(decoded == "Alice is at the door\nfront camera — Grüße")
        #expect(Self.header(r, "X-Attach") == nil)
        // A delivered upload is delivered.
        #expect(ntfy.verdict(for: Self.answer(200, #"{"id":"x","event":"message","attachment":{"name":"snapshot.png"}}"#),
                             to: r, message: try s.message(), target: "") == .delivered)
    }

    @Test("a server without uploads (400, code 40014): sent again as a POST with X-Attach, and every later alert too")
    func ntfyUploadsRefused() throws {
        let s = try Stored()
        let ntfy = NtfyOutput(name: "phones", config: NtfyConfig(url: "http://n/t"), files: s.files)
        let m = try s.message()
        let put = try #require(ntfy.request(for: m, target: ""))
        #expect(put.method == "PUT")
        // ntfy 2.11's answer, as a server without attachment-cache-dir gave it.
        let refused = Self.answer(400, #"{"code":40014,"http":400,"error":"invalid request: attachments not allowed","link":"https://ntfy.sh/docs/config/#attachments"}"#)
        guard case .resend(let why) = ntfy.verdict(for: refused, to: put, message: m, target: "") else {
            Issue.record("not resent")
            return
        }
        #expect(why.contains("40014"))
        for message in [m, try s.message(body: "Bob is at the door")] {
            let post = try #require(ntfy.request(for: message, target: ""))
            #expect(post.method == "POST")
            #expect(Self.header(post, "X-Attach") == s.url)
            #expect(Self.header(post, "X-Filename") == "snapshot.png")
            #expect(String(decoding: post.body, as: UTF8.self) == message.body)
        }
        // Another 400 is about something else: rejected as before.
        #expect(ntfy.verdict(for: Self.answer(400, #"{"code":40013,"http":400}"#), to: put, message: m, target: "") == .rejected)
    }

    @Test("413 for an upload: files that large go as the link, smaller ones are still uploaded")
    func ntfyUploadTooLarge() throws {
        let s = try Stored()
        let ntfy = NtfyOutput(config: NtfyConfig(url: "http://n/t"), files: s.files)
        let big = try s.message(size: 5_000_000)
        let put = try #require(ntfy.request(for: big, target: ""))
        #expect(put.method == "PUT")
        let tooLarge = Self.answer(413, #"{"code":41301,"http":413,"error":"attachment too large, or bandwidth limit reached"}"#)
        guard case .resend = ntfy.verdict(for: tooLarge, to: put, message: big, target: "") else {
            Issue.record("not resent")
            return
        }
        #expect(try #require(ntfy.request(for: big, target: "")).method == "POST")
        #expect(try #require(ntfy.request(for: try s.message(size: 6_000_000), target: "")).method == "POST")
        #expect(try #require(ntfy.request(for: try s.message(size: 4_000_000), target: "")).method == "PUT")
        // A 413 to a plain publish is not about an upload.
        let post = ServiceRequest(method: "POST", url: "http://n/t")
        #expect(ntfy.verdict(for: tooLarge, to: post, message: big, target: "") == .rejected)
    }

    @Test("a file no longer stored: the link instead (logged once at info), or the plain message without a URL")
    func ntfyFileGone() throws {
        let s = try Stored()
        let log = LogCollector()
        let ntfy = NtfyOutput(name: "phones", config: NtfyConfig(url: "http://n/t"), files: s.files, logger: log.logger())
        let gone = AttachmentStore.newToken() + "/snapshot.png"
        for _ in 0..<2 {
            let r = try #require(ntfy.request(for: try s.message(files: [gone]), target: ""))
            #expect(r.method == "POST" && Self.header(r, "X-Attach") == s.url)
        }
        let lines = log.lines(containing: "is no longer stored")
        #expect(lines.count == 2 && lines[0].contains(" info ") && lines[1].contains(" debug "), "\(lines)")
        #expect(lines[0].contains("output 'phones'") && lines[0].contains(gone))
        let plain = try #require(ntfy.request(for: try s.message(withURL: false, files: [gone]), target: ""))
        #expect(plain.method == "POST" && Self.header(plain, "X-Attach") == nil && Self.header(plain, "X-Filename") == nil)
        #expect(String(decoding: plain.body, as: UTF8.self) == "Alice is at the door")
        // No file kept at all (an item from before attachments): the link.
        let old = try #require(ntfy.request(for: try s.message(files: []), target: ""))
        #expect(old.method == "POST" && Self.header(old, "X-Attach") == s.url)
    }

    @Test("the journal keeps an item's files beside it; a table an older version made gets the column")
    func journalKeepsFiles() throws {
        let dir = TempJournalDirectory()
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        do {
            // The table as the version before attachments made it, with one open row.
            let db = try SQLiteDatabase(path: dir.file)
            try db.execute("""
                CREATE TABLE output_deliveries(
                    id INTEGER PRIMARY KEY AUTOINCREMENT, output TEXT NOT NULL, key TEXT NOT NULL,
                    target TEXT NOT NULL, item BLOB NOT NULL, created REAL NOT NULL, done INTEGER NOT NULL DEFAULT 0,
                    UNIQUE(output, key, target));
                INSERT INTO output_deliveries(output, key, target, item, created) VALUES ('phones', 'old', '', x'7b7d', 1);
                """)
        }
        let journal = try Journal(config: dir.config())
        let files = ["0123456789abcdef0123456789abcdef/snapshot.png", "0123456789abcdef0123456789abcdef/clip.mp4"]
        _ = try journal.storeOutputDeliveries([("phones", "new", "")], item: Array("{}".utf8), files: files, created: 2)
        let rows = try journal.openOutputDeliveries(output: "phones", after: 0, limit: 10)
        #expect(rows.map(\.key) == ["old", "new"])
        #expect(rows.map(\.files) == [[], files])
    }

    @Test("a webhook's body template sees message.attachments")
    func webhookTemplate() throws {
        let s = try Stored()
        var config = WebhookConfig(url: "http://127.0.0.1:1/h")
        config.body = try Template.parse("{{ message.attachments[0].identifier }} {{ message.attachments[0].type }} {{ message.attachments[0].size }} {{ message.attachments[0].url }}")
        let r = try #require(WebhookOutput(config: config).request(for: try s.message(), target: ""))
        #expect(String(decoding: r.body, as: UTF8.self) == "snapshot image/png \(Self.png.count) \(s.url)")
    }
}
