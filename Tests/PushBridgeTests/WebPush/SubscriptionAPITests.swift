import Foundation
import Testing
@testable import PushBridge

/// The subscription API and the /subscribe files on a real libmicrohttpd server, driven by curl;
/// and the same server over TLS (`monitoring.tls`), with plain HTTP refused.
@Suite("Web Push subscription API", .serialized)
struct SubscriptionAPITests {
    static let token = "s3cret-token-0123456789"

    struct Reply {
        var status: Int
        var body: String
        var headers: String
        var bytes: [UInt8] = []
    }

    /// One request with curl: status, body, headers (`-k` never: TLS is checked with `cacert`).
    func curl(_ method: String, _ url: String, token: String? = nil, body: String? = nil, cacert: String? = nil,
              extra: [String] = []) async throws -> Reply {
        let dir = NSTemporaryDirectory() + "pb-curl-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var args = ["-sS", "--max-time", "10", "-X", method, "-o", dir + "/body", "-D", dir + "/headers", "-w", "%{http_code}"]
        if let token { args += ["-H", "Authorization: Bearer \(token)"] }
        if let body {
            try body.write(toFile: dir + "/request", atomically: true, encoding: .utf8)
            args += ["-H", "Content-Type: application/json", "--data-binary", "@" + dir + "/request"]
        }
        if let cacert { args += ["--cacert", cacert] }
        let r = try await ManagedProcess.run("/usr/bin/curl", args + extra + [url], timeout: .seconds(20))
        let text = { (name: String) in (try? String(contentsOfFile: dir + "/" + name, encoding: .utf8)) ?? "" }
        let bytes = (try? Data(contentsOf: URL(fileURLWithPath: dir + "/body"))).map { [UInt8]($0) } ?? []
        return Reply(status: Int(r.stdout) ?? (r.status == 0 ? -1 : -Int(r.status)), body: text("body"), headers: text("headers"),
                     bytes: bytes)
    }

    func server(store: any SubscriptionStore, tls: MonitoringTLSConfig? = nil) throws -> MetricsServer {
        let endpoints = WebPushEndpoints(store: store, publicKey: "BPUBLIC", token: Self.token)
        return try MetricsServer(address: "127.0.0.1:0", metrics: { "m 1\n" }, ready: { true },
                                 dashboard: DashboardEndpoints(feed: DecisionFeed(includeText: false, traceTopic: nil),
                                                               snapshot: { Array(#"{"version":"t"}"#.utf8) }),
                                 webPush: endpoints, tls: tls)
    }

    @Test func subscribeReplaceUnsubscribe() async throws {
        let store = MemorySubscriptionStore(limit: 2)
        let s = try server(store: store)
        defer { s.stop() }
        let api = "http://127.0.0.1:\(s.port)/api/webpush/subscriptions"
        let body = SubscriptionTests.browserJSON
        #expect(try await curl("POST", api, body: body).status == 401, "no token")
        let wrong = try await curl("POST", api, token: Self.token + "x", body: body)
        #expect(wrong.status == 401 && wrong.headers.contains("WWW-Authenticate: Bearer"))
        #expect(try await curl("POST", api, token: String(Self.token.dropLast()), body: body).status == 401)
        #expect(try await curl("POST", api, body: body, extra: ["-H", "Authorization: Basic \(Self.token)"]).status == 401)
        #expect(store.all().isEmpty)
        let created = try await curl("POST", api, token: Self.token, body: body)
        #expect(created.status == 201 && created.body == #"{"subscribed":true}"#)
        #expect(try await curl("POST", api, token: Self.token, body: body).status == 201, "upsert by endpoint")
        #expect(store.all().count == 1)
        let other = body.replacingOccurrences(of: "gAAAAABk", with: "second")
        #expect(try await curl("POST", api, token: Self.token, body: other).status == 201)
        let full = try await curl("POST", api, token: Self.token, body: body.replacingOccurrences(of: "gAAAAABk", with: "third"))
        #expect(full.status == 507)
        let bad = try await curl("POST", api, token: Self.token, body: #"{"endpoint":"https://x/y","keys":{}}"#)
        #expect(bad.status == 400 && bad.body.contains("'keys.p256dh'"))
        let big = #"{"endpoint":"https://x/y","pad":""# + String(repeating: "a", count: WebPushEndpoints.maximumBody) + "\"}"
        #expect(try await curl("POST", api, token: Self.token, body: big).status == 413)
        #expect(try await curl("DELETE", api, body: #"{"endpoint":"https://updates.push.services.mozilla.com/wpush/v2/second"}"#).status == 401)
        #expect(try await curl("DELETE", api, token: Self.token,
                               body: #"{"endpoint":"https://updates.push.services.mozilla.com/wpush/v2/second"}"#).status == 204)
        #expect(try await curl("DELETE", api, token: Self.token,
                               body: #"{"endpoint":"https://updates.push.services.mozilla.com/wpush/v2/second"}"#).status == 404)
        #expect(store.all().map(\.endpoint) == ["https://updates.push.services.mozilla.com/wpush/v2/gAAAAABk"])
        #expect(try await curl("GET", api).status == 405)
        // The server still answers the other routes afterwards (no connection state left behind).
        #expect(try await curl("GET", "http://127.0.0.1:\(s.port)/healthz").body == "ok")
    }

    @Test func thePagesFiles() async throws {
        let s = try server(store: MemorySubscriptionStore())
        defer { s.stop() }
        let base = "http://127.0.0.1:\(s.port)"
        let key = try await curl("GET", base + "/api/webpush/vapid-public-key")
        #expect(key.status == 200 && key.body == #"{"public_key":"BPUBLIC"}"#)
        let page = try await curl("GET", base + "/subscribe")
        #expect(page.status == 200 && page.body == DashboardAssets.subscribeHTML)
        #expect(page.headers.contains("Content-Security-Policy: default-src 'none'"))
        for (path, type) in [("/sw.js", "text/javascript"), ("/manifest.webmanifest", "application/manifest+json"),
                             ("/icon.svg", "image/svg+xml"), ("/icon-192.png", "image/png"), ("/icon-512.png", "image/png")] {
            let r = try await curl("GET", base + path)
            #expect(r.status == 200 && r.headers.contains("Content-Type: \(type)"), "\(path)")
        }
        let png = try await curl("GET", base + "/icon-192.png")
        #expect(png.bytes == DashboardAssets.icon192PNG && png.bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        let manifest = try JSONValue.parse(try await curl("GET", base + "/manifest.webmanifest").body)
        #expect(manifest["start_url"] == .string("subscribe") && manifest["display"] == .string("standalone"))
        guard case .array(let icons)? = manifest["icons"] else { Issue.record("no icons"); return }
        let sizes: [String] = icons.compactMap { $0["sizes"]?.stringValue }
        #expect(sizes.contains("512x512"))
        #expect(try await curl("GET", base + "/").status == 200, "the dashboard is still there")
    }

    @Test func theJournalStoreBehindTheAPI() async throws {
        let dir = NSTemporaryDirectory() + "pb-api-journal-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var config = JournalConfig()
        config.path = dir
        let journal = try Journal(config: config)
        let s = try server(store: try JournalSubscriptionStore(journal: journal, output: "browsers"))
        defer { s.stop() }
        #expect(try await curl("POST", "http://127.0.0.1:\(s.port)/api/webpush/subscriptions", token: Self.token,
                               body: SubscriptionTests.browserJSON).status == 201)
        let stored = try JournalSubscriptionStore(journal: journal, output: "browsers").all()
        #expect(stored.map(\.endpoint) == ["https://updates.push.services.mozilla.com/wpush/v2/gAAAAABk"])
    }

    @Test func overTLS() async throws {
        let dir = NSTemporaryDirectory() + "pb-tls-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try await WebPushConfigTests.makeCertificate(in: dir)
        let cert = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir + "/cert.pem")))
        let key = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir + "/key.pem")))
        let s = try server(store: MemorySubscriptionStore(),
                           tls: MonitoringTLSConfig(certFile: dir + "/cert.pem", keyFile: dir + "/key.pem", certPEM: cert, keyPEM: key))
        defer { s.stop() }
        let base = "https://127.0.0.1:\(s.port)"
        let health = try await curl("GET", base + "/healthz", cacert: dir + "/cert.pem")
        #expect(health.status == 200 && health.body == "ok")
        let stats = try await curl("GET", base + "/api/stats", cacert: dir + "/cert.pem")
        #expect(stats.status == 200 && stats.body == #"{"version":"t"}"#)
        #expect(try await curl("POST", base + "/api/webpush/subscriptions", token: Self.token,
                               body: SubscriptionTests.browserJSON, cacert: dir + "/cert.pem").status == 201)
        let plain = try await curl("GET", "http://127.0.0.1:\(s.port)/healthz")
        #expect(plain.status != 200 && !plain.body.contains("ok"), "plain HTTP is refused on the TLS port")
        let unverified = try await curl("GET", base + "/healthz")
        #expect(unverified.status != 200, "curl without the CA refuses the self-signed certificate")
    }

    @Test func aKeyThatIsNotTheCertificatesFailsToStart() async throws {
        let dir = NSTemporaryDirectory() + "pb-tls-bad-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try await WebPushConfigTests.makeCertificate(in: dir)
        let cert = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir + "/cert.pem")))
        let otherKey = try P256Key.generate().privatePEM()
        #expect(throws: MetricsServerError.tlsFailed(address: "127.0.0.1:0", certFile: dir + "/cert.pem")) {
            _ = try server(store: MemorySubscriptionStore(),
                           tls: MonitoringTLSConfig(certFile: dir + "/cert.pem", keyFile: "k", certPEM: cert, keyPEM: otherKey))
        }
    }

    @Test func constantTimeCompare() {
        #expect(WebPushEndpoints.constantTimeEqual(Array("abc".utf8), Array("abc".utf8)))
        #expect(!WebPushEndpoints.constantTimeEqual(Array("abc".utf8), Array("abd".utf8)))
        #expect(!WebPushEndpoints.constantTimeEqual(Array("abc".utf8), Array("abcd".utf8)))
        #expect(!WebPushEndpoints.constantTimeEqual([], Array("a".utf8)))
        #expect(WebPushEndpoints.constantTimeEqual([], []))
        // 256 bytes apart in length: the length difference alone must not wrap to "equal".
        #expect(!WebPushEndpoints.constantTimeEqual([UInt8](repeating: 0, count: 256), []))
    }
}
