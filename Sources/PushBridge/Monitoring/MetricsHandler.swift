import CMicroHTTPD

/// The request router behind `MetricsServer`, reached from libmicrohttpd's thread.
///
/// Immutable (`let` closures and `Sendable` parts only), hence `Sendable` without locks.
final class MetricsHandler: Sendable {
    let metrics: @Sendable () -> String
    let ready: @Sendable () -> Bool
    /// Why it is not ready, when something can say (`/readyz`'s 503 body); `nil`: just "not ready".
    let notReadyReason: (@Sendable () -> String?)?
    let dashboard: DashboardEndpoints?
    let streams: EventStreams?
    let webPush: WebPushEndpoints?
    /// The access check (`monitoring.http_auth`); `nil`: every request passes.
    let access: HTTPAccess?
    /// The stored attachments (`/attachments/…`); `nil`: that path is 404.
    let attachments: AttachmentDownloads?

    init(metrics: @escaping @Sendable () -> String, ready: @escaping @Sendable () -> Bool,
         notReadyReason: (@Sendable () -> String?)? = nil, dashboard: DashboardEndpoints? = nil, streams: EventStreams? = nil, webPush: WebPushEndpoints? = nil,
         access: HTTPAccess? = nil, attachments: AttachmentDownloads? = nil) {
        self.attachments = attachments
        self.metrics = metrics
        self.ready = ready
        self.notReadyReason = notReadyReason
        self.dashboard = dashboard
        self.streams = streams
        self.webPush = webPush
        self.access = access
    }

    /// One call of libmicrohttpd's access handler. The access check runs on a request's first
    /// call (no upload kept yet); then a body is read (`POST /login`, the subscription API),
    /// the event stream attached, or the router asked.
    func serve(_ connection: OpaquePointer, method: String, path: String, upload: UnsafePointer<CChar>?,
               uploadSize: UnsafeMutablePointer<Int>?, context: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> MHD_Result {
        if let access, context?.pointee == nil, access.guarded {
            let request = AccessRequest(method: method, path: path, client: ConnectionValues.clientAddress(connection),
                                        authorization: ConnectionValues.header(connection, "Authorization"),
                                        session: ConnectionValues.cookie(connection, HTTPAccess.cookieName))
            if let answer = access.gate(request) { return answer.queue(on: connection) }
            if path == HTTPAccess.loginPath, method == "GET" || method == "HEAD" {
                // Signed in already: the page is the dashboard.
                return HTTPResponse(status: 303, body: "", headers: [("Location", "/")]).queue(on: connection)
            }
        }
        if let access, method == "POST", path == HTTPAccess.loginPath, let uploadSize, let context {
            return RequestUpload.step(connection, upload, uploadSize, context, limit: HTTPAccess.maximumLoginBody) { form in
                access.login(form: form, client: ConnectionValues.clientAddress(connection))
            }
        }
        if let webPush, WebPushEndpoints.takesBody(method: method, path: path), let uploadSize, let context {
            return RequestUpload.step(connection, upload, uploadSize, context, limit: WebPushEndpoints.maximumBody) { body in
                webPush.respond(method: method, path: path,
                                authorization: ConnectionValues.header(connection, "Authorization"), body: body)
                    ?? HTTPResponse(status: 404, body: "not found\n")
            }
        }
        if let attachments, AttachmentDownloads.handles(path) {
            return attachments.respond(method: method, path: path, on: connection)
        }
        if method == "GET", path == "/api/events", let streams {
            return streams.respond(on: connection)
        }
        return respond(method: method, path: path).queue(on: connection)
    }

    /// The response for one request (HEAD gets the GET response; libmicrohttpd drops the body).
    func respond(method: String, path: String) -> HTTPResponse {
        if let answer = webPush?.respond(method: method, path: path, authorization: nil, body: nil) { return answer }
        guard method == "GET" || method == "HEAD" else {
            return HTTPResponse(status: 405, body: "method not allowed\n", headers: [("Allow", "GET, HEAD")])
        }
        switch path {
        case "/metrics":
            return HTTPResponse(status: 200, body: metrics() + (access?.prometheusText() ?? ""),
                                contentType: "text/plain; version=0.0.4; charset=utf-8")
        case "/healthz":
            return HTTPResponse(status: 200, body: "ok")
        case "/readyz":
            if ready() { return HTTPResponse(status: 200, body: "ready") }
            return HTTPResponse(status: 503, body: notReadyReason?().map { "not ready: " + $0 } ?? "not ready")
        default:
            if path == "/api/history", let streams, streams.totals != nil {
                return HTTPResponse(status: 200, body: String(decoding: streams.historyJSON(), as: UTF8.self),
                                    contentType: "application/json", headers: [("Cache-Control", "no-store")])
            }
            return dashboard?.respond(path: path) ?? HTTPResponse(status: 404, body: "not found\n")
        }
    }
}
