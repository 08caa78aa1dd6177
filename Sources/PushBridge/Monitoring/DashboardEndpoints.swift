import Foundation

/// The dashboard side of the monitoring HTTP server: `/` (the page),
/// `/api/stats` (the stats snapshot, computed per request) and `/api/events` (Server-Sent
/// Events, served by `EventStreams`).
struct DashboardEndpoints: Sendable {
    /// The decision feed `/api/events` readers attach to.
    let feed: DecisionFeed
    /// The stats-topic JSON of a fresh snapshot.
    package let snapshot: @Sendable () -> [UInt8]
    /// The totals now, sampled once a second for the rate chart's history (`nil`: no history).
    package let totals: (@Sendable () -> Counters)?
    /// `GET /api/alerts`: the active conditions as a JSON array.
    package let alerts: @Sendable () -> [UInt8]
    /// `GET /api/people`: each person's presence and since when (`{}` without people).
    let people: @Sendable () -> [UInt8]

    /// Endpoints reading `feed` and `snapshot`; with `totals`, the server keeps the last
    /// minutes of totals for the rate chart (`/api/history`).
    init(feed: DecisionFeed, snapshot: @escaping @Sendable () -> [UInt8],
                totals: (@Sendable () -> Counters)? = nil, alerts: @escaping @Sendable () -> [UInt8] = { Array("[]".utf8) },
                people: @escaping @Sendable () -> [UInt8] = { Array("{}".utf8) }) {
        self.feed = feed
        self.people = people
        self.snapshot = snapshot
        self.totals = totals
        self.alerts = alerts
    }

    /// Content-Security-Policy of the page: nothing from anywhere but this server, and
    /// nothing at all from elsewhere (the page is inline; `connect-src` is `/api/…`, `img-src`
    /// the decision list's thumbnails of attachments, `/attachments/…`).
    static let contentSecurityPolicy =
        "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'"

    /// The page: `dashboard/index.html` with its stylesheet and script inlined.
    static let page: String = DashboardAssets.indexHTML
        .replacingFirst("/*@DASHBOARD_CSS@*/", with: DashboardAssets.dashboardCSS)
        .replacingFirst("/*@DASHBOARD_JS@*/", with: DashboardAssets.dashboardJS)

    /// The response for a dashboard `path`, or `nil` when the path is not one of them.
    func respond(path: String) -> HTTPResponse? {
        switch path {
        case "/", "/index.html":
            return HTTPResponse(status: 200, body: Self.page, contentType: "text/html; charset=utf-8",
                                headers: [("Content-Security-Policy", Self.contentSecurityPolicy),
                                          ("Cache-Control", "no-cache"), ("X-Content-Type-Options", "nosniff")])
        case "/api/stats":
            return HTTPResponse(status: 200, body: String(decoding: snapshot(), as: UTF8.self),
                                contentType: "application/json", headers: [("Cache-Control", "no-store")])
        case "/api/alerts":
            return HTTPResponse(status: 200, body: String(decoding: alerts(), as: UTF8.self),
                                contentType: "application/json", headers: [("Cache-Control", "no-store")])
        case "/api/people":
            return HTTPResponse(status: 200, bytes: people(), contentType: "application/json", headers: [("Cache-Control", "no-store")])
        case "/favicon.ico":
            // What a browser asks for beside the page (the page's images may come from this server).
            return HTTPResponse(status: 200, bytes: DashboardAssets.icon192PNG, contentType: "image/png",
                                headers: [("Cache-Control", "max-age=86400")])
        case "/api/events":
            // HEAD (GET is streamed before this router is asked).
            return HTTPResponse(status: 200, body: "", contentType: "text/event-stream; charset=utf-8")
        default:
            return nil
        }
    }
}

private extension String {
    /// This text with the first `marker` replaced by `replacement` (unchanged without one).
    func replacingFirst(_ marker: String, with replacement: String) -> String {
        guard let r = range(of: marker) else { return self }
        return replacingCharacters(in: r, with: replacement)
    }
}
