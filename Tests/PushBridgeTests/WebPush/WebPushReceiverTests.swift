import Foundation
import Testing
@testable import PushBridge

/// The requests `WebPushRequest` builds, sent with curl to integration/webpush/receiver.py: a push
/// service on loopback that verifies the VAPID JWT with PyPI's `cryptography` and decrypts the
/// body with PyPI's `http-ece` as a browser would. (The 410 prune and the 429 retry as an
/// output does them are the outputs framework's; here: the answers and what they mean.)
@Suite("Web Push against a receiver", .serialized)
struct WebPushReceiverTests {
    /// The virtualenv integration/webpush/install.sh makes (outside the repository).
    static var python: String {
        ProcessInfo.processInfo.environment["PUSHBRIDGE_WEBPUSH_PYTHON"] ?? "/var/cache/pushbridge-test/webpush-venv/bin/python"
    }

    final class Receiver: Sendable {
        let process: ManagedProcess
        let port: Int
        init() async throws {
            process = try ManagedProcess(WebPushReceiverTests.python, [repositoryRoot + "/integration/webpush/receiver.py"])
            // Python imports cryptography and http_ece first: seconds when the parallel suite loads both cores.
            let deadline = ContinuousClock.now + .seconds(45)
            var port: Int?
            while port == nil, ContinuousClock.now < deadline, process.isRunning {
                if let line = process.stdout.split(separator: "\n").first,
                   case .int(let p)? = (try? JSONValue.parse(String(line)))?["port"] { port = Int(p) }
                try await Task.sleep(for: .milliseconds(50))
            }
            guard let port else {
                _ = await process.terminate()
                throw ProcessError(description: "receiver.py did not start (\(process.isRunning ? "no port within 45 s" : "it exited")): \(process.stderr)")
            }
            self.port = port
        }
        func stop() async { _ = await process.terminate(grace: .seconds(3)) }
    }

    /// One HTTP exchange with curl; `(status, response headers)`.
    /// Runs `body` with a fresh receiver, then stops it (SIGTERM by PID) whatever `body` did.
    func withReceiver(_ body: (Receiver) async throws -> Void) async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python) else {
            Issue.record("\(Self.python) is missing: run integration/webpush/install.sh (make test-deps)")
            return
        }
        let receiver = try await Receiver()
        do { try await body(receiver) } catch {
            await receiver.stop()
            throw error
        }
        await receiver.stop()
    }

    func send(_ url: String, headers: [(String, String)], body: [UInt8]) async throws -> (Int, String) {
        let dir = NSTemporaryDirectory() + "pb-wp-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(body).write(to: URL(fileURLWithPath: dir + "/body"))
        var args = ["-sS", "--max-time", "10", "-X", "POST", "-o", "/dev/null", "-D", dir + "/headers", "-w", "%{http_code}",
                    "--data-binary", "@" + dir + "/body"]
        for (name, value) in headers { args += ["-H", "\(name): \(value)"] }
        let r = try await ManagedProcess.run("/usr/bin/curl", args + [url], timeout: .seconds(20))
        return (Int(r.stdout) ?? -1, (try? String(contentsOfFile: dir + "/headers", encoding: .utf8)) ?? "")
    }

    func request(_ receiver: Receiver, _ path: String, json: String) async throws -> [UInt8] {
        let dir = NSTemporaryDirectory() + "pb-wp-\(UUID().uuidString).json"
        try json.write(toFile: dir, atomically: true, encoding: .utf8)
        defer { unlink(dir) }
        let r = try await ManagedProcess.run("/usr/bin/curl", ["-sS", "--max-time", "10", "--data-binary", "@" + dir,
                                                                "http://127.0.0.1:\(receiver.port)\(path)"])
        return Array(r.stdout.utf8)
    }

    func subscribe(_ receiver: Receiver, path: String, answers: [Int] = [201], key: VAPIDKey) async throws -> WebPushSubscription {
        let json = #"{"path":"\#(path)","answers":\#(answers),"retry_after":7,"application_server_key":"\#(key.publicKey)"}"#
        return try WebPushSubscription.parse(try await request(receiver, "/_subscribe", json: json)).get()
    }

    func received(_ receiver: Receiver) async throws -> [JSONValue] {
        let r = try await ManagedProcess.run("/usr/bin/curl", ["-sS", "--max-time", "10", "http://127.0.0.1:\(receiver.port)/_received"])
        guard case .array(let items) = try JSONValue.parse(r.stdout) else { return [] }
        return items
    }

    func headers(_ record: JSONValue) -> [String: String] {
        guard case .object(let o)? = record["headers"] else { return [:] }
        return Dictionary(o.map { ($0.key.lowercased(), $0.value.stringValue ?? "") }, uniquingKeysWith: { a, _ in a })
    }

    @Test func payloadsDecryptAndVAPIDVerifies() async throws {
        try await withReceiver { receiver in
            let vapid = VAPIDKey(key: try P256Key.generate())
            let phone = try await subscribe(receiver, path: "/push/phone", key: vapid)
            #expect(phone.endpoint == "http://127.0.0.1:\(receiver.port)/push/phone")
            // The display message of the README's doorbell example.
            let display = #"{"id":"6f1c2b9e-4d3a-4c2b-9a51-2f0e8d7c6b5a","source_topic":"home/front/doorbell","route":"doorbell","push_type":"alert","priority":10,"collapse_id":"doorbell-front","title":"Doorbell","subtitle":"front","body":"Alice is at the door","interruption_level":"time-sensitive","user_info":{"who":"Alice"},"modified":false,"received_at":"2026-11-29T15:42:18.123Z"}"#
            let payload = try #require(WebPushPayload.from(display: Array(display.utf8)))
            let now = Date()
            let expiration = Int64(now.timeIntervalSince1970) + 600
            let built = try WebPushRequest.build(subscription: phone, payload: payload,
                                                 options: .init(vapid: vapid, subject: "mailto:ops@example.com", expiration: expiration,
                                                                interruptionLevel: "time-sensitive", collapseID: "doorbell-front"), now: now)
            let (status, _) = try await send(built.url, headers: built.headers, body: built.body)
            #expect(status == 201)
            #expect(WebPushRequest.verdict(status: status) == .accepted)
            // A withdraw of a condition, passive, with a collapse id that is no valid topic.
            let withdraw = try #require(WebPushPayload.from(display: Array(#"{"type":"withdraw","alert_id":"a1","collapse_id":"leak/kitchen sink","route":"leak","reason":"cleared"}"#.utf8)))
            let second = try WebPushRequest.build(subscription: phone, payload: withdraw,
                                                  options: .init(vapid: vapid, subject: "https://example.com/ops",
                                                                 interruptionLevel: "passive", collapseID: "leak/kitchen sink"))
            #expect(try await send(second.url, headers: second.headers, body: second.body).0 == 201)

            let records = try await received(receiver)
            #expect(records.count == 2)
            guard records.count == 2 else { return }
            let first = records[0]
            #expect(first["decrypt_error"] == .null, "\(first)")
            #expect(first["payload"]?.stringValue == String(decoding: payload, as: UTF8.self), "decrypts to the alert")
            #expect(first["vapid"]?["ok"] == .bool(true), "\(first["vapid"].map { "\($0)" } ?? "")")
            #expect(first["vapid"]?["aud"] == .string("http://127.0.0.1:\(receiver.port)"))
            #expect(first["vapid"]?["sub"] == .string("mailto:ops@example.com"))
            let h = headers(first)
            #expect(Int(h["ttl"] ?? "") .map { (599...600).contains($0) } == true, "TTL: what is left until the expiration")
            #expect(h["urgency"] == "high")
            #expect(h["topic"] == "doorbell-front")
            #expect(h["content-encoding"] == "aes128gcm")
            #expect(h["content-type"] == "application/octet-stream")
            let other = records[1]
            #expect(other["payload"]?.stringValue == #"{"type":"withdraw","tag":"leak/kitchen sink","data":{"id":"a1","route":"leak"}}"#)
            #expect(other["vapid"]?["ok"] == .bool(true))
            let h2 = headers(other)
            #expect(h2["urgency"] == "very-low" && h2["ttl"] == "86400")
            #expect(h2["topic"] == WebPushHeaders.topic(collapseID: "leak/kitchen sink") && h2["topic"]?.count == 32)
        }
    }

    @Test func aWrongSignatureOrKeyIsRefused() async throws {
        try await withReceiver { receiver in
            let vapid = VAPIDKey(key: try P256Key.generate())
            let phone = try await subscribe(receiver, path: "/push/p", key: vapid)
            let good = try WebPushRequest.build(subscription: phone, payload: Array("{}".utf8), options: .init(vapid: vapid, subject: "mailto:a@b.c"))
            // Signed by another key but claiming this one's k=: the signature check must catch it.
            let impostor = VAPIDKey(key: try P256Key.generate())
            let forged = try impostor.authorization(endpoint: phone.endpoint, subject: "mailto:a@b.c")
                .replacingOccurrences(of: impostor.publicKey, with: vapid.publicKey)
            let headers = good.headers.map { $0.name == "Authorization" ? ($0.name, forged) : ($0.name, $0.value) }
            #expect(try await send(good.url, headers: headers, body: good.body).0 == 403)
            // Signed well by a key that is not the subscription's applicationServerKey.
            let stranger = try WebPushRequest.build(subscription: phone, payload: Array("{}".utf8), options: .init(vapid: impostor, subject: "mailto:a@b.c"))
            #expect(try await send(stranger.url, headers: stranger.headers.map { ($0.name, $0.value) }, body: stranger.body).0 == 403)
            // Encrypted for another browser: the push service takes it, this browser cannot read it.
            var body = good.body
            body[body.count - 1] ^= 1
            #expect(try await send(good.url, headers: good.headers.map { ($0.name, $0.value) }, body: body).0 == 400)
            let records = try await received(receiver)
            #expect(records.map { $0["vapid"]?["ok"] } == [.bool(false), .bool(false), .bool(true)])
            #expect(records.first?["vapid"]?["error"]?.stringValue?.contains("does not verify") == true)
            #expect(records.last?["decrypt_error"]?.stringValue?.isEmpty == false)
        }
    }

    @Test func goneAndTooManyRequestsAnswers() async throws {
        try await withReceiver { receiver in
            let vapid = VAPIDKey(key: try P256Key.generate())
            let gone = try await subscribe(receiver, path: "/push/gone", answers: [410], key: vapid)
            let busy = try await subscribe(receiver, path: "/push/busy", answers: [429, 201], key: vapid)
            let store = MemorySubscriptionStore()
            _ = store.upsert(gone)
            _ = store.upsert(busy)
            let options = WebPushRequest.Options(vapid: vapid, subject: "mailto:a@b.c")
            let toGone = try WebPushRequest.build(subscription: gone, payload: Array("{}".utf8), options: options)
            let (goneStatus, _) = try await send(toGone.url, headers: toGone.headers.map { ($0.name, $0.value) }, body: toGone.body)
            #expect(goneStatus == 410)
            if WebPushRequest.verdict(status: goneStatus) == .subscriptionGone { store.remove(endpoint: gone.endpoint) }
            #expect(store.all() == [busy], "the 410 removes the subscription")
            let toBusy = try WebPushRequest.build(subscription: busy, payload: Array("{}".utf8), options: options)
            let (busyStatus, busyHeaders) = try await send(toBusy.url, headers: toBusy.headers.map { ($0.name, $0.value) }, body: toBusy.body)
            #expect(busyStatus == 429 && WebPushRequest.verdict(status: busyStatus) == .retry)
            #expect(busyHeaders.lowercased().contains("retry-after: 7"))
            let again = try WebPushRequest.build(subscription: busy, payload: Array("{}".utf8), options: options)
            #expect(try await send(again.url, headers: again.headers.map { ($0.name, $0.value) }, body: again.body).0 == 201)
        }
    }

    @Test func oneAlertFansOutToEverySubscriptionAndTheGoneOneIsPruned() async throws {
        try await withReceiver { receiver in
            let vapid = VAPIDKey(key: try P256Key.generate())
            let store = MemorySubscriptionStore()
            for (path, answers) in [("/push/a", [201]), ("/push/b", [410]), ("/push/c", [201])] {
                _ = store.upsert(try await subscribe(receiver, path: path, answers: answers, key: vapid))
            }
            // A subscription damaged in storage (its p256dh no P-256 point): dropped, not sent to.
            _ = store.upsert(WebPushSubscription(endpoint: "http://127.0.0.1:\(receiver.port)/push/damaged",
                                                 p256dh: [UInt8](repeating: 4, count: 65), auth: [UInt8](repeating: 0, count: 16),
                                                 expirationTime: nil))
            let fanOut = WebPushFanOut(store: store, vapid: vapid, subject: "mailto:ops@example.com")
            let display = #"{"id":"e1","source_topic":"zigbee2mqtt/kitchen","route":"leak","push_type":"alert","priority":10,"collapse_id":"leak-kitchen","title":"Water leak","body":"kitchen","interruption_level":"critical","modified":false,"received_at":"2026-12-01T20:00:00.000Z"}"#
            let requests = try fanOut.requests(display: Array(display.utf8), expiration: nil)
            #expect(requests.map(\.url) == ["a", "b", "c"].map { "http://127.0.0.1:\(receiver.port)/push/\($0)" })
            #expect(store.all().count == 3, "the damaged subscription is removed")
            var verdicts: [WebPushRequest.Verdict] = []
            for request in requests {
                let (status, _) = try await send(request.url, headers: request.headers.map { ($0.name, $0.value) }, body: request.body)
                verdicts.append(try fanOut.answered(endpoint: request.url, status: status))
            }
            #expect(verdicts == [.accepted, .subscriptionGone, .accepted])
            #expect(store.all().map(\.endpoint) == ["a", "c"].map { "http://127.0.0.1:\(receiver.port)/push/\($0)" }, "the 410 pruned b")
            let records = try await received(receiver)
            #expect(records.count == 3 && records.allSatisfy { $0["vapid"]?["ok"] == .bool(true) })
            #expect(records.allSatisfy { $0["payload"]?.stringValue == #"{"type":"alert","title":"Water leak","body":"kitchen","tag":"leak-kitchen","require_interaction":true,"data":{"id":"e1","route":"leak"}}"# })
            #expect(records.allSatisfy { headers($0)["urgency"] == "high" && headers($0)["topic"] == "leak-kitchen" })
            #expect(try fanOut.requests(display: Array("not json".utf8), expiration: nil).isEmpty)
        }
    }
}
