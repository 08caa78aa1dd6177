import Foundation
import Synchronization

/// Why the metrics endpoint could not start.
public enum MetricsServerError: Error, Equatable, CustomStringConvertible {
    /// Not an IPv4 `host:port` (e.g. `127.0.0.1:9464`).
    case invalidAddress(String)
    /// The socket could not be bound or listened on; `reason` is `strerror`'s text.
    case bindFailed(address: String, reason: String)
    /// The serving thread's wake-up pipe could not be made.
    case startFailed(address: String)

    /// One line for the log, naming the address.
    public var description: String {
        switch self {
        case .invalidAddress(let a): "metrics address '\(a)' is not an IPv4 host:port such as 127.0.0.1:9464"
        case .bindFailed(let a, let reason): "metrics endpoint \(a): \(reason)"
        case .startFailed(let a): "metrics endpoint \(a): cannot start (\(String(cString: strerror(errno))))"
        }
    }
}

/// The HTTP monitoring endpoint (SPEC section 7), served on its own thread.
///
/// Routes (GET and HEAD; other methods get 405): `/metrics` (Prometheus text, version
/// 0.0.4), `/healthz` (200 `ok` while the process runs), `/readyz` (200 `ready` while
/// `ready()` returns `true`, else 503 `not ready`); any other path is 404. The content
/// providers are fixed at init and called on the serving thread.
///
/// A small HTTP/1.x server of its own (`HTTPServerLoop`): one request per connection,
/// answered with `Connection: close`. It replaced libmicrohttpd, whose Debian build loads
/// GnuTLS, p11-kit and their dependencies into every bridge (2.4 MB of the bridge's RSS)
/// for HTTPS the endpoint never served.
public final class MetricsServer: Sendable {
    /// The address as given.
    public let address: String
    /// The bound port (useful when the address asked for port 0).
    public let port: Int
    private let loop: HTTPServerLoop

    /// Binds exactly `address` (IPv4 `host:port`, port 0 picks a free one) and starts serving.
    public init(address: String, metrics: @escaping @Sendable () -> String,
                ready: @escaping @Sendable () -> Bool) throws(MetricsServerError) {
        guard let socketAddress = Self.parse(address) else { throw .invalidAddress(address) }
        let (fd, port) = try Self.listen(on: socketAddress, address: address)
        let handler = MetricsHandler(metrics: metrics, ready: ready)
        guard let loop = HTTPServerLoop(listening: fd, handler: handler) else {
            close(fd)
            throw .startFailed(address: address)
        }
        self.address = address
        self.port = port
        self.loop = loop
        loop.start(name: "http \(address)")
    }

    /// Serves `stats`: `/metrics` renders a fresh snapshot, `/readyz` follows `stats.isReady`.
    public convenience init(address: String, stats: Stats, perTopic: Bool = false) throws(MetricsServerError) {
        try self.init(address: address,
                      metrics: { prometheusText(stats.snapshot(now: Date().timeIntervalSince1970), perTopic: perTopic) },
                      ready: { stats.isReady })
    }

    /// Stops serving and closes the socket; waits for a request in progress. Idempotent.
    public func stop() { loop.stop() }

    deinit { stop() }

    /// `host:port` with an IPv4 host (or `localhost`) to a socket address; `nil` when invalid.
    static func parse(_ address: String) -> sockaddr_in? {
        guard let colon = address.lastIndex(of: ":") else { return nil }
        var host = String(address[..<colon])
        if host == "localhost" { host = "127.0.0.1" }
        guard let port = UInt16(address[address.index(after: colon)...]) else { return nil }
        var sa = sockaddr_in()
        sa.sin_family = sa_family_t(AF_INET)
        sa.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &sa.sin_addr) == 1 else { return nil }
        return sa
    }

    /// A bound, listening TCP socket and its port.
    private static func listen(on socketAddress: sockaddr_in,
                               address: String) throws(MetricsServerError) -> (Int32, Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .bindFailed(address: address, reason: String(cString: strerror(errno))) }
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var sa = socketAddress
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &sa) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sp in
                bind(fd, sp, length) == 0 && Glibc.listen(fd, 64) == 0 && getsockname(fd, sp, &length) == 0
            }
        }
        guard ok else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw .bindFailed(address: address, reason: reason)
        }
        return (fd, Int(UInt16(bigEndian: sa.sin_port)))
    }
}

/// The request router behind `MetricsServer`, reached from the serving thread.
///
/// Immutable (`let` closures only), hence `Sendable` without locks.
final class MetricsHandler: Sendable {
    let metrics: @Sendable () -> String
    let ready: @Sendable () -> Bool

    init(metrics: @escaping @Sendable () -> String, ready: @escaping @Sendable () -> Bool) {
        self.metrics = metrics
        self.ready = ready
    }

    /// The response for one request (HEAD gets the GET response; the server drops the body).
    func respond(method: String, path: String) -> HTTPResponse {
        guard method == "GET" || method == "HEAD" else {
            return HTTPResponse(status: 405, body: "method not allowed\n", headers: [("Allow", "GET, HEAD")])
        }
        switch path {
        case "/metrics":
            return HTTPResponse(status: 200, body: metrics(), contentType: "text/plain; version=0.0.4; charset=utf-8")
        case "/healthz":
            return HTTPResponse(status: 200, body: "ok")
        case "/readyz":
            return ready() ? HTTPResponse(status: 200, body: "ready") : HTTPResponse(status: 503, body: "not ready")
        default:
            return HTTPResponse(status: 404, body: "not found\n")
        }
    }
}

/// One HTTP response.
struct HTTPResponse {
    var status: Int
    var body: String
    var contentType = "text/plain; charset=utf-8"
    var headers: [(String, String)] = []

    init(status: Int, body: String, contentType: String = "text/plain; charset=utf-8",
         headers: [(String, String)] = []) {
        self.status = status
        self.body = body
        self.contentType = contentType
        self.headers = headers
    }

    /// The bytes on the wire: status line, headers (`Content-Length` always, the body's
    /// length also for HEAD), and the body unless `head`.
    func serialized(head: Bool) -> [UInt8] {
        let body = Array(self.body.utf8)
        var text = "HTTP/1.1 \(status) \(Self.reason(status))\r\nContent-Type: \(contentType)\r\n"
            + "Content-Length: \(body.count)\r\nConnection: close\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        return Array(text.utf8) + (head ? [] : body)
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 400: "Bad Request"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 431: "Request Header Fields Too Large"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}
