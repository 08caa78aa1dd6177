import Foundation
import PushBridgeCLI
import Synchronization
import Testing
@testable import PushBridge

/// `monitoring.http_auth` on a real libmicrohttpd server: the token as Bearer or as the session
/// cookie of `POST /login`, the open paths, the sign-in form, failures counted and blocked.
@Suite("HTTP server access (http_auth)")
struct HTTPAccessTests {
    static let token = "pb-http-token-0123456789abcdef"
    static let bearer = "Authorization: Bearer \(token)"
    static let form = "Content-Type: application/x-www-form-urlencoded"

    /// An access check on `token` reading `clock`, its log lines in `log`.
    static func access(clock: ManualClock, log: LogCollector? = nil, token: String = token, secure: Bool = false) -> HTTPAccess {
        HTTPAccess(auth: HTTPAuthConfig.token(file: "/run/secrets/pushbridge_http_token", token: HTTPToken(token)),
                   secureCookie: secure, now: clock.stageClock.monotonic,
                   log: log.map { l in { @Sendable line in l.append(line) } })
    }

    /// The whole server: dashboard, Web Push page and API, the access check.
    static func server(_ access: HTTPAccess, tls: MonitoringTLSConfig? = nil) throws -> MetricsServer {
        try MetricsServer(address: "127.0.0.1:0", metrics: { "# TYPE m gauge\nm 1\n" }, ready: { true },
                          dashboard: DashboardEndpoints(feed: DecisionFeed(includeText: false, traceTopic: nil),
                                                        snapshot: { Array(#"{"version":"t"}"#.utf8) }),
                          webPush: WebPushEndpoints(store: MemorySubscriptionStore(), publicKey: "BPUBLIC",
                                                    token: "wp-subscribe-token-0123456789"),
                          tls: tls, access: access)
    }

    /// `POST /login` with `token` as the form's field.
    static func login(_ port: Int, token: String) throws -> RawHTTPReply {
        let field = token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? token
        return try rawHTTP("POST", "/login", port: port, headers: [form], body: "token=\(field)")
    }

    /// The session id of a `Set-Cookie` header.
    static func sessionID(_ reply: RawHTTPReply) -> String? {
        guard let cookie = reply.headers["set-cookie"], cookie.hasPrefix(HTTPAccess.cookieName + "=") else { return nil }
        return String(cookie.dropFirst(HTTPAccess.cookieName.count + 1).prefix { $0 != ";" })
    }

    @Test(arguments: ["/", "/index.html", "/metrics", "/api/stats", "/api/events", "/api/alerts", "/api/history", "/nope"])
    func withoutTheTokenAPathIs401(path: String) throws {
        let s = try Self.server(Self.access(clock: ManualClock()))
        defer { s.stop() }
        let reply = try rawHTTP("GET", path, port: s.port)
        #expect(reply.status == 401)
        #expect(reply.headers["www-authenticate"]?.hasPrefix("Bearer") == true)
        #expect(!reply.body.contains("\"version\"") && !reply.body.contains("m 1"))
    }

    @Test func theSignInFormShowsNothingOfTheDashboard() throws {
        let s = try Self.server(Self.access(clock: ManualClock()))
        defer { s.stop() }
        let page = try rawHTTP("GET", "/", port: s.port)
        #expect(page.status == 401 && page.headers["content-type"] == "text/html; charset=utf-8")
        #expect(page.body.contains("<form method=post action=/login>"))
        #expect(page.body.contains(#"name="token""#) && page.body.contains(#"type="password""#))
        #expect(!page.body.contains("<script") && !page.body.contains("api/") && page.body != DashboardEndpoints.page)
        #expect(page.headers["content-security-policy"]?.contains("form-action 'self'") == true)
        #expect(try rawHTTP("HEAD", "/", port: s.port).status == 401)
    }

    @Test func theBearerTokenOpensEveryPath() throws {
        let s = try Self.server(Self.access(clock: ManualClock()))
        defer { s.stop() }
        let metrics = try rawHTTP("GET", "/metrics", port: s.port, headers: [Self.bearer])
        #expect(metrics.status == 200 && metrics.body.hasPrefix("# TYPE m gauge\nm 1\n"))
        #expect(metrics.body.contains("pushbridge_http_auth_failures_total 0"))
        #expect(PrometheusChecker(metrics.body).errors.isEmpty)
        let stats = try rawHTTP("GET", "/api/stats", port: s.port, headers: ["authorization: bearer  \(Self.token) "])
        #expect(stats.status == 200 && stats.body == #"{"version":"t"}"#, "scheme case and blanks do not matter")
        let page = try rawHTTP("GET", "/", port: s.port, headers: [Self.bearer])
        #expect(page.status == 200 && page.body == DashboardEndpoints.page)
        #expect(try rawHTTP("HEAD", "/api/events", port: s.port, headers: [Self.bearer]).status == 200)
        // The event stream, read as `pushbridge monitor` reads it (closed before the server stops).
        do {
            let events = try EventStreamClient(address: HostPort(host: "127.0.0.1", port: s.port), bearer: Self.token)
            #expect(try events.next(timeout: 5)?.event == "stats")
        }
        #expect(throws: EventStreamError.self) {
            _ = try EventStreamClient(address: HostPort(host: "127.0.0.1", port: s.port), bearer: "wrong").next(timeout: 5)
        }
    }

    @Test func probesTheSubscribePageAndAttachmentsNeedNoToken() throws {
        let access = Self.access(clock: ManualClock())
        let s = try Self.server(access)
        defer { s.stop() }
        #expect(try rawHTTP("GET", "/healthz", port: s.port).status == 200)
        #expect(try rawHTTP("GET", "/readyz", port: s.port).status == 200)
        for path in ["/subscribe", "/subscribe/", "/sw.js", "/manifest.webmanifest", "/icon.svg", "/icon-192.png",
                     "/icon-512.png", "/api/webpush/vapid-public-key"] {
            #expect(try rawHTTP("GET", path, port: s.port).status == 200, "\(path)")
        }
        // Capability URLs: open, and not served yet.
        #expect(try rawHTTP("GET", "/attachments/x/y", port: s.port).status == 404)
        #expect(try rawHTTP("GET", "/attachments/x/y", port: s.port, headers: ["Authorization: Bearer nope"]).status == 404)
        // The subscription API checks its own token, not this one.
        let subscribe = try rawHTTP("POST", WebPushEndpoints.subscriptionsPath, port: s.port,
                                    headers: [Self.bearer, "Content-Type: application/json"], body: "{}")
        #expect(subscribe.status == 401 && subscribe.body.contains("a valid 'Authorization: Bearer <token>' is needed"))
        #expect(access.failures == 0)
    }

    @Test func signingInSetsASessionCookieThatOpensTheDashboard() throws {
        let access = Self.access(clock: ManualClock())
        let s = try Self.server(access)
        defer { s.stop() }
        let reply = try Self.login(s.port, token: Self.token)
        #expect(reply.status == 303 && reply.headers["location"] == "/")
        let cookie = try #require(reply.headers["set-cookie"])
        #expect(cookie.contains("; Path=/") && cookie.contains("; HttpOnly") && cookie.contains("; SameSite=Strict"))
        #expect(cookie.contains("; Max-Age=43200") && !cookie.contains("Secure"), "no TLS: no Secure")
        let id = try #require(Self.sessionID(reply))
        #expect(id.count == 64 && id.allSatisfy { $0.isHexDigit })
        #expect(id != Self.token && !cookie.contains(Self.token))
        let session = "Cookie: other=1; \(HTTPAccess.cookieName)=\(id)"
        let page = try rawHTTP("GET", "/", port: s.port, headers: [session])
        #expect(page.status == 200 && page.body == DashboardEndpoints.page)
        #expect(try rawHTTP("GET", "/api/stats", port: s.port, headers: [session]).status == 200)
        #expect(try rawHTTP("GET", "/login", port: s.port, headers: [session]).headers["location"] == "/")
        #expect(try Self.sessionID(Self.login(s.port, token: Self.token)) != id, "each login gets its own id")
        let forged = "Cookie: \(HTTPAccess.cookieName)=\(String(repeating: "0", count: 64))"
        #expect(try rawHTTP("GET", "/api/stats", port: s.port, headers: [forged]).status == 401)
        #expect(access.failures == 0, "a session that does not exist is no credential: 401, not a failure")
    }

    @Test func aSessionLastsTwelveHours() throws {
        let clock = ManualClock()
        let access = Self.access(clock: clock)
        let s = try Self.server(access)
        defer { s.stop() }
        let id = try #require(Self.sessionID(Self.login(s.port, token: Self.token)))
        let session = "Cookie: \(HTTPAccess.cookieName)=\(id)"
        clock.advance(.seconds(12 * 3600 - 1))
        #expect(try rawHTTP("GET", "/api/stats", port: s.port, headers: [session]).status == 200)
        clock.advance(.seconds(2))
        #expect(try rawHTTP("GET", "/api/stats", port: s.port, headers: [session]).status == 401)
        #expect(try rawHTTP("GET", "/", port: s.port, headers: [session]).body.contains("action=/login"))
    }

    @Test func aWrongTokenIs401AndCounted() throws {
        let access = Self.access(clock: ManualClock())
        let s = try Self.server(access)
        defer { s.stop() }
        let wrong = try Self.login(s.port, token: Self.token + "x")
        #expect(wrong.status == 401 && wrong.headers["set-cookie"] == nil)
        #expect(wrong.body.contains("<form method=post action=/login>") && wrong.body.contains("not right"))
        #expect(try rawHTTP("POST", "/login", port: s.port, headers: [Self.form], body: "other=1").status == 401)
        #expect(try rawHTTP("GET", "/metrics", port: s.port, headers: ["Authorization: Bearer \(Self.token.dropLast())"]).status == 401)
        #expect(try rawHTTP("GET", "/metrics", port: s.port, headers: ["Authorization: Basic \(Self.token)"]).status == 401)
        #expect(access.failures == 4)
        let metrics = try rawHTTP("GET", "/metrics", port: s.port, headers: [Self.bearer]).body
        #expect(PrometheusChecker(metrics).value("pushbridge_http_auth_failures_total") == 4)
        #expect(metrics.contains("# TYPE pushbridge_http_auth_failures_total counter"))
    }

    @Test func tenFailuresInAMinuteBlockTheAddressForAMinute() throws {
        let clock = ManualClock()
        let log = LogCollector()
        let access = Self.access(clock: clock, log: log)
        let s = try Self.server(access)
        defer { s.stop() }
        for i in 1...10 {
            #expect(try rawHTTP("GET", "/metrics", port: s.port, headers: ["Authorization: Bearer wrong-\(i)"]).status == 401)
            clock.advance(.seconds(5))
        }
        let blocked = try rawHTTP("GET", "/metrics", port: s.port, headers: [Self.bearer])
        // Ten failures by 45 s, the clock now at 50 s: blocked until 105 s.
        #expect(blocked.status == 429 && blocked.headers["retry-after"] == "55")
        #expect(try Self.login(s.port, token: Self.token).status == 429)
        #expect(try rawHTTP("GET", "/subscribe", port: s.port).status == 429)
        #expect(try rawHTTP("GET", "/healthz", port: s.port).status == 200, "probes are never blocked")
        #expect(try rawHTTP("GET", "/readyz", port: s.port).status == 200)
        #expect(access.failures == 10)
        #expect(log.lines.count == 1 && log.contains("10 wrong tokens from 127.0.0.1"))
        clock.advance(.seconds(54))
        #expect(try rawHTTP("GET", "/metrics", port: s.port, headers: [Self.bearer]).status == 429)
        clock.advance(.seconds(2))
        #expect(try rawHTTP("GET", "/metrics", port: s.port, headers: [Self.bearer]).status == 200)
    }

    @Test func failuresSpreadOverMoreThanAMinuteDoNotBlock() throws {
        let clock = ManualClock()
        let s = try Self.server(Self.access(clock: clock))
        defer { s.stop() }
        for _ in 1...20 {
            #expect(try rawHTTP("GET", "/metrics", port: s.port, headers: ["Authorization: Bearer wrong"]).status == 401)
            clock.advance(.seconds(7))
        }
        #expect(try rawHTTP("GET", "/metrics", port: s.port, headers: [Self.bearer]).status == 200)
    }

    @Test func theTokenIsNeverInAnAnswerOrTheLog() throws {
        let clock = ManualClock()
        let log = LogCollector()
        let s = try Self.server(Self.access(clock: clock, log: log))
        defer { s.stop() }
        var replies = [try Self.login(s.port, token: Self.token), try rawHTTP("GET", "/", port: s.port)]
        for path in ["/", "/metrics", "/api/stats", "/api/alerts", "/nope", "/login"] {
            replies.append(try rawHTTP("GET", path, port: s.port, headers: [Self.bearer]))
        }
        for _ in 0..<11 { replies.append(try Self.login(s.port, token: Self.token + "-wrong")) }
        replies.append(try rawHTTP("GET", "/", port: s.port, headers: [Self.bearer]))
        #expect(replies.last?.status == 429)
        for reply in replies {
            #expect(!reply.body.contains(Self.token) && !reply.headers.values.contains { $0.contains(Self.token) })
        }
        #expect(!log.lines.isEmpty && !log.lines.contains { $0.contains(Self.token) })
    }

    @Test func aNewTokenEndsTheSessionsOfTheOld() throws {
        let access = Self.access(clock: ManualClock())
        let s = try Self.server(access)
        defer { s.stop() }
        let id = try #require(Self.sessionID(Self.login(s.port, token: Self.token)))
        let newToken = "the-next-token-9876543210"
        access.update(HTTPAuthConfig.token(file: "/run/secrets/pushbridge_http_token", token: HTTPToken(newToken)))
        #expect(try rawHTTP("GET", "/api/stats", port: s.port, headers: ["Cookie: \(HTTPAccess.cookieName)=\(id)"]).status == 401)
        #expect(try rawHTTP("GET", "/api/stats", port: s.port, headers: [Self.bearer]).status == 401)
        #expect(try rawHTTP("GET", "/api/stats", port: s.port, headers: ["Authorization: Bearer \(newToken)"]).status == 200)
        access.update(HTTPAuthConfig.open)
        #expect(try rawHTTP("GET", "/api/stats", port: s.port).status == 200)
        #expect(try rawHTTP("POST", "/login", port: s.port, headers: [Self.form], body: "token=x").status == 404)
    }

    @Test func anOpenServerAsksForNothing() throws {
        let s = try Self.server(HTTPAccess(auth: HTTPAuthConfig.open))
        defer { s.stop() }
        #expect(try rawHTTP("GET", "/", port: s.port).body == DashboardEndpoints.page)
        #expect(try rawHTTP("GET", "/api/stats", port: s.port, headers: ["Authorization: Bearer whatever"]).status == 200)
    }

    @Test func underTLSTheCookieIsSecure() async throws {
        let dir = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try await WebPushConfigTests.makeCertificate(in: dir)
        let cert = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir + "/cert.pem")))
        let key = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir + "/key.pem")))
        let s = try Self.server(Self.access(clock: ManualClock(), secure: true),
                                tls: MonitoringTLSConfig(certFile: dir + "/cert.pem", keyFile: dir + "/key.pem", certPEM: cert, keyPEM: key))
        defer { s.stop() }
        let r = try await ManagedProcess.run("/usr/bin/curl", [
            "-sS", "--max-time", "10", "--cacert", dir + "/cert.pem", "-o", "/dev/null", "-D", "-",
            "--data-urlencode", "token=\(Self.token)", "https://127.0.0.1:\(s.port)/login"])
        #expect(r.status == 0, "curl: \(r.stderr)")
        #expect(r.stdout.hasPrefix("HTTP/1.1 303"))
        let lines: [String] = r.stdout.components(separatedBy: "\r\n")
        let cookie = try #require(lines.first { $0.lowercased().hasPrefix("set-cookie:") })
        #expect(cookie.hasSuffix("; Secure") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
    }
}

/// The parts of the access check without a server: forms, cookies, digests, the tables' bounds.
@Suite struct HTTPAccessPartsTests {
    @Test func formFields() {
        #expect(LoginPage.field("token", in: Array("token=a%2Bb+c%25&x=1".utf8)) == "a+b c%")
        #expect(LoginPage.field("token", in: Array("x=1&token=".utf8)) == "")
        #expect(LoginPage.field("token", in: Array("tokens=1".utf8)) == nil)
        #expect(LoginPage.field("token", in: Array("token=%zz".utf8)) == nil)
        #expect(LoginPage.field("token", in: Array("token=%ff".utf8)) == nil, "not UTF-8")
        #expect(LoginPage.field("token", in: Array("token=%".utf8)) == nil)
    }

    @Test func cookies() {
        #expect(ConnectionValues.cookie("pushbridge_session", in: "a=1; pushbridge_session=abc ;b=2") == "abc")
        #expect(ConnectionValues.cookie("pushbridge_session", in: "pushbridge_session=\"q\"") == "q")
        #expect(ConnectionValues.cookie("pushbridge_session", in: "xpushbridge_session=1") == nil)
    }

    @Test func bearerDigests() {
        #expect(HTTPAccess.bearerDigest("Bearer abc") == Digests.sha256(Array("abc".utf8)))
        #expect(HTTPAccess.bearerDigest("BEARER   abc  ") == Digests.sha256(Array("abc".utf8)))
        #expect(HTTPAccess.bearerDigest("Basic abc") == nil && HTTPAccess.bearerDigest("Bearer") == nil)
    }

    @Test func theFailureTableIsBounded() {
        var table = FailureTable()
        let now = Duration.seconds(1000)
        for _ in 0..<FailureTable.limit { _ = table.fail("blocked", now: now) }
        let left = table.blocked("blocked", now: now)
        #expect(left == FailureTable.blockTime)
        for i in 0..<5000 { _ = table.fail("10.0.\(i / 256).\(i % 256)", now: now + .milliseconds(i)) }
        #expect(table.count == FailureTable.capacity)
        let stillBlocked = table.blocked("blocked", now: now + .seconds(59)) != nil
        #expect(stillBlocked, "the least recent address that is not blocked made room")
        // Past the window, new addresses push out every one with nothing left to remember.
        _ = table.fail("later", now: now + .seconds(120))
        #expect(table.count == 1)
    }

    @Test func theSessionTableIsBounded() {
        var sessions = SessionTable()
        let first = sessions.open(now: .seconds(1))
        for i in 0..<SessionTable.capacity { _ = sessions.open(now: .seconds(2 + i)) }
        #expect(sessions.count == SessionTable.capacity)
        let firstOpen = sessions.isOpen(first, now: .seconds(3))
        #expect(!firstOpen, "the one that expires first made room")
        let longOpen = sessions.isOpen(String(repeating: "a", count: 1000), now: .seconds(3))
        #expect(!longOpen)
    }

    @Test(arguments: [("127.0.0.1", true), ("127.9.8.7", true), ("localhost", true), ("LOCALHOST", true), ("::1", true),
                      ("0:0:0:0:0:0:0:1", true), ("::ffff:127.0.0.1", true), ("0.0.0.0", false), ("::", false),
                      ("192.168.1.10", false), ("128.0.0.1", false), ("fe80::1", false), ("myhost", false)])
    func loopbackHosts(host: String, loopback: Bool) {
        #expect(HostPort(host: host, port: 9464).isLoopback == loopback)
    }
}
