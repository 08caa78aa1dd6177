import Foundation
import PushBridge

/// One Server-Sent Event: its `event:` name (`message` when none) and its `data:` lines.
package struct ServerSentEvent: Sendable, Equatable {
    package var event: String
    package var data: String

    init(event: String, data: String) {
        self.event = event
        self.data = data
    }
}

/// Why an event stream could not be read.
package enum EventStreamError: Error, Equatable, CustomStringConvertible {
    /// Not a `host:port`.
    case invalidAddress(String)
    /// The TCP connection failed; `reason` is `strerror`'s text.
    case connectFailed(String, reason: String)
    /// The server answered with another status than 200, or not HTTP.
    case badResponse(String)
    /// The server closed the stream.
    case closed

    package var description: String {
        switch self {
        case .invalidAddress(let a): "'\(a)' is not a host:port"
        case .connectFailed(let a, let reason): "cannot connect to \(a): \(reason)"
        case .badResponse(let line): "unexpected answer: \(line)"
        case .closed: "the event stream was closed"
        }
    }
}

/// A small blocking client for `/api/events` on a plain socket (HTTP/1.0, so the stream is
/// the body as is, without chunked framing). `pushbridge monitor` reads the live stream
/// with it; one thread at a time may call `next`.
package final class EventStreamClient {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var headersRead = false
    private var event = ""
    private var data: [String] = []

    /// Connects to `address` (`host:port`, parsed as the config parses it) and requests `path`.
    package convenience init(address: String, path: String = "/api/events") throws(EventStreamError) {
        guard let parsed = try? HostPort(parsing: address) else { throw .invalidAddress(address) }
        try self.init(address: parsed, path: path)
    }

    /// Connects to `hostPort` (a wildcard such as `0.0.0.0` means loopback) and requests `path`,
    /// with `Authorization: Bearer <bearer>` when given (`monitoring.http_auth`'s token).
    package init(address hostPort: HostPort, path: String = "/api/events", bearer: String? = nil) throws(EventStreamError) {
        let target = hostPort.connectable, address = hostPort.description
        let sa: SocketAddress
        do { sa = try target.socketAddresses()[0] } catch { throw .connectFailed(address, reason: "\(error)") }
        let fd = sa.makeSocket()
        guard fd >= 0 else { throw .connectFailed(address, reason: String(cString: strerror(errno))) }
        guard sa.withSockaddr({ Glibc.connect(fd, $0, $1) }) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw .connectFailed(address, reason: reason)
        }
        let loopback = target.description
        let authorization = bearer.map { "Authorization: Bearer \($0)\r\n" } ?? ""
        let request = Array("GET \(path) HTTP/1.0\r\nHost: \(loopback)\r\n\(authorization)Accept: text/event-stream\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        self.fd = fd
    }

    deinit { close(fd) }

    /// The next event, waiting at most `timeout` seconds; `nil` when none came in time.
    package func next(timeout: Double) throws(EventStreamError) -> ServerSentEvent? {
        let deadline = Date().timeIntervalSince1970 + timeout
        while true {
            if let e = try parse() { return e }
            let left = deadline - Date().timeIntervalSince1970
            if left <= 0 { return nil }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&p, 1, Int32(min(left, 3600) * 1000) + 1)
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 16 * 1024)
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { throw .closed }
            buffer += chunk[0..<n]
        }
    }

    /// One event from the buffer when a whole one is there.
    private func parse() throws(EventStreamError) -> ServerSentEvent? {
        if !headersRead {
            guard let end = find([13, 10, 13, 10]) else { return nil }
            let head = String(decoding: buffer[0..<end], as: UTF8.self)
            buffer.removeFirst(end + 4)
            let status = head.split(separator: "\r\n").first.map(String.init) ?? ""
            let parts = status.split(separator: " ")
            guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1] == "200" else { throw .badResponse(status) }
            headersRead = true
        }
        while let newline = buffer.firstIndex(of: 10) {
            var line = String(decoding: buffer[0..<newline], as: UTF8.self)
            buffer.removeFirst(newline + 1)
            if line.hasSuffix("\r") { line.removeLast() }
            if line.isEmpty {
                defer { event = ""; data = [] }
                if !data.isEmpty { return ServerSentEvent(event: event.isEmpty ? "message" : event, data: data.joined(separator: "\n")) }
                continue
            }
            if line.hasPrefix(":") { continue }
            let (field, value) = Self.field(line)
            switch field {
            case "event": event = value
            case "data": data.append(value)
            default: break   // retry, id
            }
        }
        return nil
    }

    private static func field(_ line: String) -> (String, String) {
        guard let colon = line.firstIndex(of: ":") else { return (line, "") }
        var value = line[line.index(after: colon)...]
        if value.first == " " { value = value.dropFirst() }
        return (String(line[..<colon]), String(value))
    }

    private func find(_ pattern: [UInt8]) -> Int? {
        guard buffer.count >= pattern.count else { return nil }
        for i in 0...(buffer.count - pattern.count) where buffer[i] == pattern[0] {
            if Array(buffer[i..<(i + pattern.count)]) == pattern { return i }
        }
        return nil
    }
}
