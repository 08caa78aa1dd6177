import Foundation
import Testing
@testable import PushBridge

/// The `webpush` output end to end: a real mosquitto, the bridge in process with the monitoring
/// server, and integration/webpush/receiver.py as the push service with its browsers (it checks the
/// VAPID JWT with PyPI's `cryptography` and decrypts with PyPI's `http-ece`). Browsers subscribe
/// through the bridge's subscription API with the token, as the /subscribe page does.
@Suite("Integration: webpush output", .serialized)
struct WebPushOutputTests {
    let receiverTests = WebPushReceiverTests()
    static let token = "wp-e2e-token-0123456789abcdef"

    /// One bridge with a journal, `monitoring.http` on a free port, a `webpush` output.
    struct Setup {
        let s: Scenario
        let dir: String
        let http: Int
        let bridge: InProcessBridge
        var base: String { "http://127.0.0.1:\(http)" }
        var output: WebPushOutput? { bridge.bridge.outputs?.webPush }

        /// `doorbellExtra`: more keys of the doorbell route (indented as its keys).
        static func start(doorbellExtra: String = "") async throws -> Setup {
            let s = try await Scenario.start()
            let dir = try makeTempDirectory()
            try (WebPushOutputTests.token + "\n").write(toFile: dir + "/token", atomically: true, encoding: .utf8)
            let http = try LoopbackPorts.free()
            // The route of the README's doorbell example.
            let yaml = brokerSection(s.broker, clientID: uniqueName("wp")) + """
                display: {topic: "\(s.ns)/out/{{ topic }}", format: json}
                journal: {path: \(dir)/journal}
                monitoring:
                  status_topic: \(s.ns)/status
                  http: "127.0.0.1:\(http)"
                  log_level: debug
                routes:
                  - name: doorbell
                    topic: \(s.ns)/in/+/doorbell
                    collapse_id: doorbell-front
                    expiration: 10m
                    alert: {title: Doorbell, body: "{{ payload.who }} is at the door", interruption_level: time-sensitive}
                    \(doorbellExtra)
                outputs:
                  - name: browsers
                    webpush: {vapid_key_file: \(dir)/keys/vapid.pem, subject: "mailto:ops@example.com", subscribe_token_file: \(dir)/token}
                """
            let bridge = try InProcessBridge.start(yaml: yaml)
            try await s.waitUntilOnline()
            return Setup(s: s, dir: dir, http: http, bridge: bridge)
        }
    }

    /// `curl` with `args`; (HTTP status, body).
    func curl(_ args: [String]) async throws -> (Int, String) {
        let r = try await ManagedProcess.run("/usr/bin/curl", ["-sS", "--max-time", "10", "-w", "\n%{http_code}"] + args, timeout: .seconds(20))
        let status = Int(r.stdout.split(separator: "\n").last ?? "") ?? -1
        return (status, String(r.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().joined(separator: "\n")))
    }

    /// A browser of the receiver at `path` whose push endpoint answers `answers` in turn: its
    /// PushSubscription JSON, made for the bridge's VAPID public key `key`.
    func browser(_ receiver: WebPushReceiverTests.Receiver, path: String, answers: [Int], key: String) async throws -> [UInt8] {
        try await receiverTests.request(receiver, "/_subscribe",
                                        json: #"{"path":"\#(path)","answers":\#(answers),"retry_after":2,"application_server_key":"\#(key)"}"#)
    }

    /// POSTs `subscription` to the bridge's subscription API with `token` (none: no header); the status.
    func subscribe(_ setup: Setup, _ subscription: [UInt8], token: String?) async throws -> Int {
        let file = setup.dir + "/sub-\(UUID().uuidString).json"
        try Data(subscription).write(to: URL(fileURLWithPath: file))
        var args = ["-X", "POST", "-H", "Content-Type: application/json", "--data-binary", "@" + file]
        if let token { args += ["-H", "Authorization: Bearer \(token)"] }
        return try await curl(args + [setup.base + WebPushEndpoints.subscriptionsPath]).0
    }

    func records(_ receiver: WebPushReceiverTests.Receiver, _ path: String) async throws -> [JSONValue] {
        try await receiverTests.received(receiver).filter { $0["path"]?.stringValue == path }
    }

    /// Pushes the receiver got, per path.
    func counts(_ receiver: WebPushReceiverTests.Receiver) async throws -> [String: Int] {
        var n: [String: Int] = [:]
        for r in try await receiverTests.received(receiver) { n[r["path"]?.stringValue ?? "", default: 0] += 1 }
        return n
    }

    /// Polls `condition` every 100 ms for at most 20 s; a test failure when it never holds.
    func until(_ what: String, _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("timed out waiting for \(what)")
        throw ProcessError(description: "timed out waiting for \(what)")
    }

    @Test("subscribe with the token; an alert arrives decrypted and VAPID-signed with TTL, Urgency, Topic; 410 removes the subscription; 429 waits for Retry-After")
    func deliversToSubscribedBrowsers() async throws {
        try await receiverTests.withReceiver { receiver in
            let setup = try await Setup.start()
            #expect(!setup.bridge.log.lines(containing: "made a new VAPID key in \(setup.dir)/keys/vapid.pem").isEmpty)
            let (keyStatus, keyBody) = try await curl([setup.base + "/api/webpush/vapid-public-key"])
            #expect(keyStatus == 200)
            let key = try #require(try JSONValue.parse(keyBody)["public_key"]?.stringValue)
            let onDisk = try VAPIDKey.loadOrCreate(path: setup.dir + "/keys/vapid.pem")
            #expect(!onDisk.created && onDisk.key.publicKey == key, "the served key is the one in the file")

            let phone = try await browser(receiver, path: "/push/phone", answers: [201], key: key)
            let gone = try await browser(receiver, path: "/push/gone", answers: [410], key: key)
            let busy = try await browser(receiver, path: "/push/busy", answers: [429, 201], key: key)
            #expect(try await subscribe(setup, phone, token: nil) == 401)
            #expect(try await subscribe(setup, phone, token: "wrong-token-0123456789abcdef") == 401)
            #expect(try setup.output?.fanOut.store.all().isEmpty == true, "a refused subscription is not stored")
            for subscription in [phone, gone, busy] { #expect(try await subscribe(setup, subscription, token: Self.token) == 201) }
            let endpoint = { (path: String) in "http://127.0.0.1:\(receiver.port)\(path)" }
            #expect(try setup.output?.fanOut.store.all().map(\.endpoint) == ["/push/phone", "/push/gone", "/push/busy"].map(endpoint))

            // The README's doorbell payload.
            let sent = Date().timeIntervalSince1970
            try setup.s.publish("front/doorbell", #"{"who":"Alice"}"#)
            let display = try JSONValue.parse(try await setup.s.waitFor(setup.s.display("front/doorbell"))[0].payload)
            try await until("the three browsers' pushes") {
                try await counts(receiver) == ["/push/phone": 1, "/push/gone": 1, "/push/busy": 2]
            }
            let first = try await records(receiver, "/push/phone")[0]
            #expect(first["status"] == .int(201))
            #expect(first["decrypt_error"] == .null, "\(first)")
            let payload = try JSONValue.parse(try #require(first["payload"]?.stringValue))
            #expect(payload["type"] == .string("alert"))
            #expect(payload["title"] == .string("Doorbell"))
            #expect(payload["body"] == .string("Alice is at the door"))
            #expect(payload["tag"] == .string("doorbell-front"))
            #expect(payload["data"]?["id"] == display["id"])
            #expect(payload["data"]?["route"] == .string("doorbell"))
            #expect(first["vapid"]?["ok"] == .bool(true), "\(first["vapid"].map { "\($0)" } ?? "")")
            #expect(first["vapid"]?["sub"] == .string("mailto:ops@example.com"))
            #expect(first["vapid"]?["k"] == .string(key))
            let headers = receiverTests.headers(first)
            #expect(headers["urgency"] == "high", "time-sensitive")
            #expect(headers["topic"] == "doorbell-front")
            let ttl = try #require(headers["ttl"].flatMap { Int($0) })
            let age = Int((first["at"]?.numberValue ?? sent) - sent) + 1
            #expect(ttl <= 600 && ttl >= 600 - age - 2, "TTL \(ttl): what is left of the 10 minutes")

            // 410: the subscription is gone from the store and the delivery counted skipped.
            #expect(try await records(receiver, "/push/gone")[0]["status"] == .int(410))
            try await eventually("the 410 prunes") {
                try setup.output?.fanOut.store.all().map(\.endpoint) == ["/push/phone", "/push/busy"].map(endpoint)
            }
            // 429 with Retry-After: 2, then 201: the second attempt no sooner than 2 s after.
            let b = try await records(receiver, "/push/busy")
            #expect(b.map { $0["status"] } == [.int(429), .int(201)])
            let gap = (b[1]["at"]?.numberValue ?? 0) - (b[0]["at"]?.numberValue ?? 0)
            #expect(gap >= 1.9, "waited \(gap) s")
            let stats = try #require(setup.bridge.bridge.outputs?.snapshots().first)
            #expect(stats.name == "browsers" && stats.kind == "webpush")
            #expect(stats.delivered == 2 && stats.skipped == 1 && stats.retried == 1 && stats.failed == 0, "\(stats)")

            // A second alert goes to the two left, not to the removed one.
            try setup.s.publish("front/doorbell", #"{"who":"Bob"}"#)
            try await until("the second alert's pushes") {
                let n = try await counts(receiver)
                return n["/push/phone"] == 2 && n["/push/busy"] == 3
            }
            #expect(try await counts(receiver)["/push/gone"] == 1, "nothing more to the removed subscription")
            let second = try await records(receiver, "/push/phone")[1]
            #expect(second["payload"]?.stringValue.map { try? JSONValue.parse($0) }??["body"] == .string("Bob is at the door"))
            try await setup.bridge.stop()
        }
    }

    @Test("an alert with a picture: the decrypted payload's image is the attachment's URL, the push message under 4096 bytes")
    func pictureAsImage() async throws {
        try await receiverTests.withReceiver { receiver in
            let snapshots = "pb-\(UUID().uuidString.prefix(8))/front/snapshot"
            let setup = try await Setup.start(doorbellExtra: "attachments: [{identifier: snapshot, from_topic: \"\(snapshots)\"}]")
            let (_, keyBody) = try await curl([setup.base + "/api/webpush/vapid-public-key"])
            let key = try #require(try JSONValue.parse(keyBody)["public_key"]?.stringValue)
            let phone = try await browser(receiver, path: "/push/phone", answers: [201], key: key)
            #expect(try await subscribe(setup, phone, token: Self.token) == 201)
            _ = try setup.s.observer.client.publish(topic: snapshots, payload: OutputAttachmentTests.png, qos: 1, retain: false, userProperties: [])
            // (A body too long to fit beside the URL is shortened, the URL kept whole: the
            // payload's own tests; the route's APNs size limit keeps such a body from here.)
            try setup.s.publish("front/doorbell", #"{"who":"Alice"}"#)
            let display = try JSONValue.parse(try await setup.s.waitFor(setup.s.display("front/doorbell"))[0].payload)
            let url = try #require(display["attachments"]?[0]?["url"]?.stringValue)
            #expect(url.hasPrefix(setup.base + "/attachments/") && url.hasSuffix("/snapshot.png"))
            try await until("the push") { try await counts(receiver) == ["/push/phone": 1] }
            let record = try await records(receiver, "/push/phone")[0]
            #expect(record["decrypt_error"] == .null, "\(record)")
            let text = try #require(record["payload"]?.stringValue)
            #expect(text.utf8.count <= PayloadEncryption.maximumPlaintext)
            let payload = try JSONValue.parse(text)
            #expect(payload["image"] == .string(url))
            #expect(payload["body"] == .string("Alice is at the door"))
            let length = try #require(receiverTests.headers(record)["content-length"].flatMap { Int($0) })
            #expect(length <= 4096, "the encrypted body: \(length) bytes")
            try await setup.bridge.stop()
        }
    }

    @Test("a VAPID key file that cannot be used stops the start, naming the file")
    func unusableKeyFileFailsTheStart() async throws {
        let s = try await Scenario.start()
        let dir = try makeTempDirectory()
        try (Self.token + "\n").write(toFile: dir + "/token", atomically: true, encoding: .utf8)
        try "not a key\n".write(toFile: dir + "/vapid.pem", atomically: true, encoding: .utf8)
        let yaml = brokerSection(s.broker, clientID: uniqueName("wp")) + """
            monitoring: {http: "127.0.0.1:\(try LoopbackPorts.free())"}
            routes: [{name: a, topic: "\(s.ns)/in/#"}]
            outputs:
              - name: browsers
                webpush: {vapid_key_file: \(dir)/vapid.pem, subject: "mailto:ops@example.com", subscribe_token_file: \(dir)/token}
            """
        #expect {
            _ = try InProcessBridge.start(yaml: yaml)
        } throws: { error in
            "\(error)".hasPrefix("output 'browsers': VAPID key file '\(dir)/vapid.pem' holds no P-256 private key in PEM")
        }
    }
}
