import Foundation
import Synchronization
import Testing
@testable import PushBridge

/// A reply read off a raw socket.
struct RawHTTPReply {
    var status: Int
    var headers: [String: String]   // lowercased names
    var body: String
}

enum RawHTTPError: Error { case connect(Int32), malformed(String) }

/// One HTTP/1.0 request over a plain TCP socket to `host`:`port`, with `headers` (`Name: value`)
/// and a `body` (its `Content-Length` added); reads to EOF.
func rawHTTP(_ method: String, _ path: String, port: Int, host: String = "127.0.0.1",
             headers: [String] = [], body: String? = nil) throws -> RawHTTPReply {
    guard let fd = LoopbackPorts.connect(port: port, host: host) else { throw RawHTTPError.connect(errno) }
    defer { close(fd) }
    var requestHead = "\(method) \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n"
    for header in headers { requestHead += header + "\r\n" }
    if let body { requestHead += "Content-Length: \(body.utf8.count)\r\n" }
    let request = Array((requestHead + "\r\n" + (body ?? "")).utf8)
    _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    var data: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = recv(fd, &buffer, buffer.count, 0)
        if n <= 0 { break }
        data += buffer[0..<n]
    }
    let text = String(decoding: data, as: UTF8.self)
    guard let split = text.range(of: "\r\n\r\n") else { throw RawHTTPError.malformed(text) }
    let head = text[..<split.lowerBound].components(separatedBy: "\r\n")
    let statusParts = head[0].split(separator: " ")
    guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else {
        throw RawHTTPError.malformed(head[0])
    }
    var headers: [String: String] = [:]
    for line in head.dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { throw RawHTTPError.malformed(line) }
        headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    return RawHTTPReply(status: status, headers: headers, body: String(text[split.upperBound...]))
}

@Suite("Metrics HTTP server")
struct MetricsServerTests {
    /// A flag the readiness closure reads.
    final class Flag: Sendable {
        let value = Atomic<Bool>(false)
    }

    func server() throws -> MetricsServer {
        try MetricsServer(address: "127.0.0.1:0", metrics: { "# TYPE up gauge\nup 1\n" }, ready: { false })
    }

    @Test func metricsEndpoint() throws {
        let s = try server()
        defer { s.stop() }
        #expect(s.port > 0)
        let reply = try rawHTTP("GET", "/metrics", port: s.port)
        #expect(reply.status == 200)
        #expect(reply.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
        #expect(reply.body == "# TYPE up gauge\nup 1\n")
        #expect(reply.headers["content-length"] == "21")
    }

    @Test func healthzAndUnknownPaths() throws {
        let s = try server()
        defer { s.stop() }
        let health = try rawHTTP("GET", "/healthz", port: s.port)
        #expect(health.status == 200 && health.body == "ok")
        for path in ["/", "/metricsx", "/healthz/", "/nope"] {
            #expect(try rawHTTP("GET", path, port: s.port).status == 404, "\(path)")
        }
    }

    @Test func readyzFollowsTheReadinessClosure() throws {
        let ready = Flag()
        let s = try MetricsServer(address: "127.0.0.1:0", metrics: { "" }, ready: { ready.value.load(ordering: .relaxed) })
        defer { s.stop() }
        let before = try rawHTTP("GET", "/readyz", port: s.port)
        #expect(before.status == 503 && before.body == "not ready")
        ready.value.store(true, ordering: .relaxed)
        let after = try rawHTTP("GET", "/readyz", port: s.port)
        #expect(after.status == 200 && after.body == "ready")
    }

    @Test func headHasHeadersButNoBody() throws {
        let s = try server()
        defer { s.stop() }
        let reply = try rawHTTP("HEAD", "/metrics", port: s.port)
        #expect(reply.status == 200)
        #expect(reply.body.isEmpty)
        #expect(reply.headers["content-type"]?.hasPrefix("text/plain") == true)
    }

    @Test func otherMethodsAreNotAllowed() throws {
        let s = try server()
        defer { s.stop() }
        let reply = try rawHTTP("DELETE", "/metrics", port: s.port)
        #expect(reply.status == 405)
        #expect(reply.headers["allow"] == "GET, HEAD")
    }

    @Test func servesStatsRenderedPerRequest() throws {
        let stats = Stats(maxTopics: 5, version: "7.7", startedAt: Date().timeIntervalSince1970)
        stats.received(topic: "a")
        let s = try MetricsServer(address: "127.0.0.1:0", metrics: { prometheusText(stats.snapshot(now: 0)) },
                                  ready: { stats.snapshot(now: 0).connected })
        defer { s.stop() }
        let checker = PrometheusChecker(try rawHTTP("GET", "/metrics", port: s.port).body)
        #expect(checker.errors.isEmpty, "\(checker.errors)")
        #expect(checker.value("pushbridge_in_flight") == 1)
        #expect(checker.value("pushbridge_build_info", ["version": "7.7"]) == 1)
        #expect(try rawHTTP("GET", "/readyz", port: s.port).status == 503)
        stats.setConnected(true)
        #expect(try rawHTTP("GET", "/readyz", port: s.port).status == 200)
    }

    @Test func stopClosesTheSocket() throws {
        let s = try server()
        let port = s.port
        #expect(try rawHTTP("GET", "/healthz", port: port).status == 200)
        s.stop()
        s.stop()   // idempotent
        #expect(throws: RawHTTPError.self) { try rawHTTP("GET", "/healthz", port: port) }
    }

    @Test func busyPortIsReported() throws {
        let first = try server()
        defer { first.stop() }
        #expect(throws: MetricsServerError.bindFailed(address: "127.0.0.1:\(first.port)", reason: "Address already in use")) {
            _ = try MetricsServer(address: "127.0.0.1:\(first.port)", metrics: { "" }, ready: { true })
        }
    }

    @Test(arguments: ["", "9464", "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:-1", "::1:9464",
                      "[::1:9464", "a b:80", "127.0.0.1:80x"])
    func invalidAddresses(address: String) {
        #expect(throws: MetricsServerError.invalidAddress(address)) {
            _ = try MetricsServer(address: address, metrics: { "" }, ready: { true })
        }
    }

    @Test func addressParsing() throws {
        let sa = try MetricsServer.bindAddress("127.0.0.1:9464")
        #expect(sa.family == AF_INET && sa.port == 9464)
        #expect(try MetricsServer.bindAddress("localhost:1").withSockaddr { p, _ in
            p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr.s_addr } } == inet_addr("127.0.0.1"))
        #expect(try MetricsServer.bindAddress("0.0.0.0:0").port == 0)
        #expect(try MetricsServer.bindAddress("[::1]:9464").family == AF_INET6)
    }
}
