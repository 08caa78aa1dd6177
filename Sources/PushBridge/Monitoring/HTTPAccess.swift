import Foundation
import Synchronization

/// What the access check reads of one request.
struct AccessRequest {
    var method: String
    var path: String
    /// The client's address (`192.0.2.7`, `2001:db8::1`; an IPv4-mapped IPv6 address as IPv4).
    var client: String
    /// The `Authorization` header, if any.
    var authorization: String?
    /// The value of the session cookie, if any.
    var session: String?
}

/// Who may use the monitoring HTTP server (`monitoring.http_auth`; docs/metrics.md, "Access").
///
/// Without a token (no `http_auth`, or `none`) every request passes. With one, every path
/// answers 401 with `WWW-Authenticate: Bearer` unless the request carries the token, except
/// `/healthz`, `/readyz`, the `/subscribe` page with its files and the subscription API (it
/// checks its own token), and `/attachments/…` (capability URLs: the path is the secret). The
/// token is accepted as `Authorization: Bearer <token>` on any path, or as the session cookie
/// `POST /login` sets (see `SessionTable`); `GET /` without either answers the sign-in form
/// (`LoginPage`). Tokens are compared as SHA-256 digests in constant time. A wrong token (a
/// Bearer header that is not the token, or a failed login) counts in
/// `pushbridge_http_auth_failures_total`; a request with no credential at all, or with a
/// session that ended, only gets 401. Ten failures within a minute from one address block it
/// for a minute (429 with `Retry-After`) on every path but `/healthz` and `/readyz`
/// (`FailureTable`).
///
/// Neither the token nor a presented credential is logged or put in an answer. The clock is
/// injectable (`now`: time since a fixed origin) so tests move it instead of sleeping.
final class HTTPAccess: Sendable {
    /// The session cookie's name.
    static let cookieName = "pushbridge_session"
    /// Where the sign-in form posts.
    static let loginPath = "/login"
    /// The largest login form read.
    static let maximumLoginBody = 4 * 1024
    /// The `WWW-Authenticate` value of a 401.
    static let challenge = #"Bearer realm="pushbridge""#
    /// Never guarded, never blocked: the probes of an orchestrator or `pushbridge health`.
    static let probePaths: Set<String> = ["/healthz", "/readyz"]
    /// The prefix of the capability URLs of attachments: not guarded (the path is the secret).
    static let attachmentsPrefix = "/attachments/"

    private struct State {
        var auth: HTTPAuthConfig?
        /// SHA-256 of the token; `nil` when open.
        var tokenDigest: [UInt8]?
        var sessions = SessionTable()
        var failures = FailureTable()
    }

    private let state: Mutex<State>
    private let failureCount = Atomic<Int>(0)
    /// Mark the session cookie `Secure` (the server runs TLS).
    let secureCookie: Bool
    private let now: @Sendable () -> Duration
    private let log: (@Sendable (String) -> Void)?

    /// An access check for `auth` (`nil` or `.open`: everything passes). `secureCookie` when
    /// the server runs TLS; `now` is time since a fixed origin; `log` hears a line when an
    /// address gets blocked (its address, never a credential).
    init(auth: HTTPAuthConfig?, secureCookie: Bool = false,
         now: @escaping @Sendable () -> Duration = { .nanoseconds(StageClock.bootTimeNanoseconds()) },
         log: (@Sendable (String) -> Void)? = nil) {
        state = Mutex(State(auth: auth, tokenDigest: auth?.token.map { Digests.sha256($0.bytes) }))
        self.secureCookie = secureCookie
        self.now = now
        self.log = log
    }

    /// Takes a reloaded `http_auth`; a changed one ends every session (failures are kept).
    func update(_ auth: HTTPAuthConfig?) {
        state.withLock { s in
            guard s.auth != auth else { return }
            s.auth = auth
            s.tokenDigest = auth?.token.map { Digests.sha256($0.bytes) }
            s.sessions.removeAll()
        }
    }

    /// `true` while a token guards the server.
    var guarded: Bool { state.withLock { $0.tokenDigest != nil } }

    /// Wrong tokens presented since start.
    var failures: Int { failureCount.load(ordering: .relaxed) }

    /// Sessions and remembered addresses now (the tables' bounds, for tests).
    var tableSizes: (sessions: Int, addresses: Int) { state.withLock { ($0.sessions.count, $0.failures.count) } }

    /// The paths open without the token besides the probes: the Web Push page's and the attachments'.
    static func isPublic(_ path: String) -> Bool {
        WebPushEndpoints.publicPaths.contains(path) || path.hasPrefix(attachmentsPrefix)
    }

    private enum Verdict {
        case pass
        case blocked(Duration)
        case denied(failed: Bool, blockStarted: Bool)
    }

    /// The answer the access check gives `request` (401, 429), or `nil` to let the router answer it.
    func gate(_ request: AccessRequest) -> HTTPResponse? {
        if Self.probePaths.contains(request.path) { return nil }
        let presented = request.authorization.flatMap(Self.bearerDigest)
        let t = now()
        let verdict: Verdict = state.withLock { s in
            guard let digest = s.tokenDigest else { return .pass }
            if let left = s.failures.blocked(request.client, now: t) { return .blocked(left) }
            if Self.isPublic(request.path) || (request.method == "POST" && request.path == Self.loginPath) { return .pass }
            if let id = request.session, s.sessions.isOpen(id, now: t) { return .pass }
            guard request.authorization != nil else { return .denied(failed: false, blockStarted: false) }
            if let presented, WebPushEndpoints.constantTimeEqual(presented, digest) { return .pass }
            return .denied(failed: true, blockStarted: s.failures.fail(request.client, now: t))
        }
        switch verdict {
        case .pass:
            return nil
        case .blocked(let left):
            return Self.tooMany(left)
        case .denied(let failed, let blockStarted):
            if failed { counted(request.client, blockStarted: blockStarted) }
            if ["GET", "HEAD"].contains(request.method), ["/", "/index.html", Self.loginPath].contains(request.path) {
                return LoginPage.response(failed: false)
            }
            return HTTPResponse(status: 401, body: "sign in at / or send 'Authorization: Bearer <token>'\n",
                                headers: [("WWW-Authenticate", Self.challenge), ("Cache-Control", "no-store")])
        }
    }

    private enum LoginOutcome {
        case opened(String)
        case wrong(blockStarted: Bool)
        case blocked(Duration)
        case open
    }

    /// `POST /login` with `form` (`nil`: over `maximumLoginBody`) from `client`: the right
    /// token opens a session (303 to `/` with the cookie); a wrong one is a failure (401 and
    /// the form again).
    func login(form: [UInt8]?, client: String) -> HTTPResponse {
        guard let form else { return HTTPResponse(status: 413, body: "the form is over \(Self.maximumLoginBody) bytes\n") }
        let presented = LoginPage.field("token", in: form).map { Digests.sha256(Array($0.utf8)) }
        let t = now()
        let outcome: LoginOutcome = state.withLock { s in
            guard let digest = s.tokenDigest else { return .open }
            if let left = s.failures.blocked(client, now: t) { return .blocked(left) }
            if let presented, WebPushEndpoints.constantTimeEqual(presented, digest) { return .opened(s.sessions.open(now: t)) }
            return .wrong(blockStarted: s.failures.fail(client, now: t))
        }
        switch outcome {
        case .open:
            return HTTPResponse(status: 404, body: "not found\n")
        case .blocked(let left):
            return Self.tooMany(left)
        case .wrong(let blockStarted):
            counted(client, blockStarted: blockStarted)
            return LoginPage.response(failed: true)
        case .opened(let id):
            var cookie = "\(Self.cookieName)=\(id); Path=/; Max-Age=\(SessionTable.lifetime.components.seconds); HttpOnly; SameSite=Strict"
            if secureCookie { cookie += "; Secure" }
            return HTTPResponse(status: 303, body: "", headers: [("Location", "/"), ("Set-Cookie", cookie), ("Cache-Control", "no-store")])
        }
    }

    /// `pushbridge_http_auth_failures_total`.
    func prometheusText() -> String {
        var out = PrometheusWriter()
        out.single("pushbridge_http_auth_failures_total", .counter,
                   "Requests to the HTTP server with a wrong token (Authorization: Bearer or POST /login).", failures)
        return out.text
    }

    /// SHA-256 of the token of an `Authorization: Bearer <token>` header (a fixed length to
    /// compare), or `nil` for another scheme or no token (a wrong credential all the same).
    static func bearerDigest(_ header: String) -> [UInt8]? {
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return Digests.sha256(Array(parts[1].trimmingCharacters(in: .whitespaces).utf8))
    }

    private func counted(_ client: String, blockStarted: Bool) {
        failureCount.add(1, ordering: .relaxed)
        if blockStarted {
            log?("monitoring: \(FailureTable.limit) wrong tokens from \(client.isEmpty ? "an unknown address" : client) within \(FailureTable.window.components.seconds) s; it gets 429 for \(FailureTable.blockTime.components.seconds) s")
        }
    }

    private static func tooMany(_ left: Duration) -> HTTPResponse {
        let seconds = max(1, left.components.seconds + (left.components.attoseconds > 0 ? 1 : 0))
        return HTTPResponse(status: 429, body: "too many wrong tokens from this address; try again in \(seconds) s\n",
                            headers: [("Retry-After", String(seconds)), ("Cache-Control", "no-store")])
    }
}
