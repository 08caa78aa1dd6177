import Foundation

/// The Web Push side of the monitoring HTTP server: the `/subscribe` page with its web app
/// manifest, icons and service worker, the VAPID public key, and the subscription API.
///
/// - `GET /subscribe` (also `/subscribe/`), `/manifest.webmanifest`, `/sw.js`, `/icon.svg`,
///   `/icon-192.png`, `/icon-512.png`: the page's files (embedded from `dashboard/`).
/// - `GET /api/webpush/vapid-public-key`: `{"public_key":"<base64url>"}` (the `applicationServerKey`).
/// - `POST /api/webpush/subscriptions` with `Authorization: Bearer <token>` and the browser's
///   PushSubscription JSON: 201 (added or its keys replaced), 400 (not a subscription),
///   401 (no or wrong token), 413 (body over `maximumBody`), 507 (the store is full).
/// - `GET /api/webpush/people` with the token: `{"people":[names]}`, the configured people a
///   subscription may name (`"person"` in the POST body; another name is a 400); without
///   the token (or with a wrong one) the list is empty.
/// - `DELETE /api/webpush/subscriptions` with the token and `{"endpoint":…}` (or the whole
///   subscription): 204 when removed, 404 when unknown.
final class WebPushEndpoints: Sendable {
    /// The largest request body read (a subscription is a few hundred bytes).
    static let maximumBody = 8 * 1024
    /// The subscription API's path.
    static let subscriptionsPath = "/api/webpush/subscriptions"
    /// The path of the people a subscription may name.
    static let peoplePath = "/api/webpush/people"
    /// The paths a browser reaches without the monitoring server's token (`monitoring.http_auth`):
    /// the page, its files, the VAPID key and the subscription API (which checks its own token).
    static let publicPaths: Set<String> = ["/subscribe", "/subscribe/", "/manifest.webmanifest", "/sw.js", "/icon.svg",
                                           "/icon-192.png", "/icon-512.png", "/api/webpush/vapid-public-key", subscriptionsPath, peoplePath]

    /// Where subscriptions go.
    let store: any SubscriptionStore
    /// The VAPID public key served to the page.
    let publicKey: String
    private let token: [UInt8]
    private let log: (@Sendable (String) -> Void)?
    /// The names of `people:` (a subscription's `person` must be one of them).
    let people: [String]

    /// Endpoints storing into `store`, serving `publicKey`, guarded by `token` (never logged);
    /// `log` hears one line per change of the subscriptions (no token, no keys); `people` the
    /// names a subscription may belong to.
    init(store: any SubscriptionStore, publicKey: String, token: String, people: [String] = [],
         log: (@Sendable (String) -> Void)? = nil) {
        self.store = store
        self.people = people
        self.publicKey = publicKey
        self.token = Array(token.utf8)
        self.log = log
    }

    /// `true` for the paths whose requests carry a body (the server reads it before `respond`).
    static func takesBody(method: String, path: String) -> Bool {
        path == subscriptionsPath && (method == "POST" || method == "DELETE")
    }

    /// The page's security policy: only this server; the service worker and manifest from here.
    static let contentSecurityPolicy =
        "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; manifest-src 'self'; worker-src 'self'; base-uri 'none'; form-action 'none'"

    /// The response for `method` `path`, or `nil` when the path is none of these.
    func respond(method: String, path: String, authorization: String?, body: [UInt8]?) -> HTTPResponse? {
        if path == Self.subscriptionsPath {
            switch method {
            case "POST", "DELETE": return change(method: method, authorization: authorization, body: body)
            default:
                return HTTPResponse(status: 405, body: "method not allowed\n", headers: [("Allow", "POST, DELETE")])
            }
        }
        guard method == "GET" || method == "HEAD" else { return nil }
        if path == Self.peoplePath {
            // The names only with the token; without it an empty list (the page shows no
            // suggestions and logs no failed request).
            let names = authorized(authorization) ? people : []
            var bytes: [UInt8] = []
            JSONValue.object(["people": .array(names.map { .string($0) })]).write(into: &bytes)
            return HTTPResponse(status: 200, bytes: bytes, contentType: "application/json", headers: [("Cache-Control", "no-store")])
        }
        let asset: (String, String)
        switch path {
        case "/subscribe", "/subscribe/":
            return HTTPResponse(status: 200, body: DashboardAssets.subscribeHTML, contentType: "text/html; charset=utf-8",
                                headers: [("Content-Security-Policy", Self.contentSecurityPolicy),
                                          ("Cache-Control", "no-cache"), ("X-Content-Type-Options", "nosniff")])
        case "/api/webpush/vapid-public-key":
            return HTTPResponse(status: 200, body: #"{"public_key":"\#(publicKey)"}"#, contentType: "application/json",
                                headers: [("Cache-Control", "no-store")])
        case "/icon-192.png": return HTTPResponse(status: 200, bytes: DashboardAssets.icon192PNG, contentType: "image/png")
        case "/icon-512.png": return HTTPResponse(status: 200, bytes: DashboardAssets.icon512PNG, contentType: "image/png")
        case "/manifest.webmanifest": asset = (DashboardAssets.manifest, "application/manifest+json")
        case "/sw.js": asset = (DashboardAssets.serviceWorkerJS, "text/javascript; charset=utf-8")
        case "/icon.svg": asset = (DashboardAssets.iconSVG, "image/svg+xml")
        default: return nil
        }
        return HTTPResponse(status: 200, body: asset.0, contentType: asset.1,
                            headers: [("Cache-Control", "no-cache"), ("X-Content-Type-Options", "nosniff")])
    }

    /// POST (subscribe) or DELETE (unsubscribe), after the token check.
    private func change(method: String, authorization: String?, body: [UInt8]?) -> HTTPResponse {
        guard authorized(authorization) else {
            return HTTPResponse(status: 401, body: "a valid 'Authorization: Bearer <token>' is needed\n",
                                headers: [("WWW-Authenticate", #"Bearer realm="pushbridge""#)])
        }
        guard let body else {
            return HTTPResponse(status: 413, body: "the body is over \(Self.maximumBody) bytes\n")
        }
        do throws(SubscriptionStoreError) {
            if method == "DELETE" {
                guard let endpoint = (try? JSONValue.parse(body))?["endpoint"]?.stringValue else {
                    return HTTPResponse(status: 400, body: "the body must be JSON with 'endpoint'\n")
                }
                guard try store.remove(endpoint: endpoint) else { return HTTPResponse(status: 404, body: "not subscribed\n") }
                log?("web push: a subscription was removed by its browser (\(store.countText))")
                return HTTPResponse(status: 204, body: "")
            }
            let subscription: WebPushSubscription
            switch WebPushSubscription.parse(body) {
            case .success(let s): subscription = s
            case .failure(let problem): return HTTPResponse(status: 400, body: "\(problem)\n")
            }
            if let person = subscription.person, !people.contains(person) {
                let known = people.isEmpty ? "no people are configured ('people:')" : "the people are " + people.joined(separator: ", ")
                return HTTPResponse(status: 400, body: "'person' \"\(person)\" is not a configured person: \(known)\n")
            }
            switch try store.upsert(subscription) {
            case .full: return HTTPResponse(status: 507, body: "the subscription list is full\n")
            case .added: log?("web push: a browser subscribed (\(store.countText))")
            case .replaced: break
            }
            return HTTPResponse(status: 201, body: #"{"subscribed":true}"#, contentType: "application/json")
        } catch {
            log?("web push: \(error)")
            return HTTPResponse(status: 500, body: "the subscription could not be stored\n")
        }
    }

    /// `Authorization: Bearer <token>` with the configured token, compared in constant time.
    func authorized(_ header: String?) -> Bool {
        guard let header else { return false }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return false }
        return Self.constantTimeEqual(Array(parts[1].trimmingCharacters(in: .whitespaces).utf8), token)
    }

    /// `a == b`, taking the same time for every `a` of a given length (no early exit on a difference).
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count)
        difference |= a.count == b.count ? 0 : 1
        for i in 0..<max(a.count, b.count) {
            difference |= (i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0)
        }
        return difference == 0
    }
}

private extension SubscriptionStore {
    /// `3 subscriptions` for log lines.
    var countText: String {
        let n = (try? all().count) ?? 0
        return n == 1 ? "1 subscription" : "\(n) subscriptions"
    }
}
