import Foundation
import PushBridge
import PushBridgeCLI

/// `pushbridge health`: one GET of the bridge's `/healthz`, for container healthchecks (no curl needed).
///
/// The address is `monitoring.http` (a wildcard bind such as `0.0.0.0` is probed on loopback;
/// over TLS when `monitoring.tls` is set) or `--url URL` (`http://` or `https://`). Exit 0 on
/// HTTP 200; 1 when the answer is another status, or no answer came within two seconds; 2 when
/// there is nothing to check or the URL is not an http(s) URL. Over TLS the certificate is not
/// verified: the probe sends no secret and reads only the status line of its own bridge.
enum HealthCommand {
    /// Budget for connecting, sending and reading the status line, together.
    static let timeoutMilliseconds = 2_000

    static func run(_ args: Arguments, config: BridgeConfig) -> Int32 {
        let target: HealthTarget
        if let url = args.value("--url") {
            switch HealthTarget.parse(url: url) {
            case .success(let parsed): target = parsed
            case .failure(let problem):
                return fail(2, "invalid --url '\(url)': \(problem.reason)")
            }
        } else if let http = config.monitoring.http {
            target = HealthTarget(address: http.connectable, path: "/healthz", tls: config.monitoring.tls != nil)
        } else {
            return fail(2, "monitoring.http is not set; nothing to check")
        }
        switch HealthProbe.statusCode(of: target, timeoutMilliseconds: timeoutMilliseconds) {
        case .success(200):
            return 0
        case .success(let status):
            printErr("pushbridge: unhealthy: GET \(target) answered HTTP \(status)")
            return 1
        case .failure(let problem):
            printErr("pushbridge: unhealthy: GET \(target) failed: \(problem.reason)")
            return 1
        }
    }
}

/// Why a health probe could not be made or did not get a status.
struct HealthProblem: Error {
    let reason: String

    /// The C library's words for `code` (`Connection refused`).
    static func errno(_ code: Int32, _ step: String) -> HealthProblem {
        HealthProblem(reason: "\(step): \(String(cString: strerror(code)))")
    }
}

/// Where to send the GET: host and port, and path.
struct HealthTarget: CustomStringConvertible {
    var address: HostPort
    var path: String
    /// `https://`: the GET goes over TLS.
    var tls = false
    /// Sent as `Authorization: Bearer …` (`monitoring.http_auth`'s token); never printed.
    var bearer: String? = nil

    var description: String { "\(tls ? "https" : "http")://\(address)\(path)" }

    /// Parses `http(s)://host[:port][/path]`; IPv6 hosts in brackets; the port defaults to 80 (443).
    static func parse(url: String) -> Result<HealthTarget, HealthProblem> {
        let lower = url.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
            return .failure(HealthProblem(reason: "only http:// and https:// URLs are supported"))
        }
        let tls = lower.hasPrefix("https://")
        let rest = url.dropFirst(tls ? "https://".count : "http://".count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        var path = String(rest.dropFirst(authority.count))
        if path.isEmpty || !path.hasPrefix("/") { path = "/" + path }
        if let fragment = path.firstIndex(of: "#") { path = String(path[..<fragment]) }
        if authority.contains("@") { return .failure(HealthProblem(reason: "user information is not supported")) }
        do {
            return .success(HealthTarget(address: try HostPort(parsing: authority, defaultPort: tls ? 443 : 80), path: path, tls: tls))
        } catch {
            return .failure(HealthProblem(reason: "\(error)"))
        }
    }
}

/// One HTTP/1.0 GET over a non-blocking POSIX socket, bounded by one deadline.
enum HealthProbe {
    /// The status code of the answer to `GET target.path`, or why there is none.
    static func statusCode(of target: HealthTarget, timeoutMilliseconds: Int) -> Result<Int, HealthProblem> {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeoutMilliseconds) * 1_000_000
        let fd: Int32
        switch connect(to: target, deadline: deadline) {
        case .success(let connected): fd = connected
        case .failure(let problem): return .failure(problem)
        }
        defer { close(fd) }
        let request = "GET \(target.path) HTTP/1.0\r\nHost: \(target.address)\r\n"
            + "User-Agent: pushbridge-health\r\nConnection: close\r\n\r\n"
        let answer: Result<String, HealthProblem>
        if target.tls {
            answer = HealthTLS.statusLine(fd: fd, host: target.address.host, request: Array(request.utf8), deadline: deadline)
        } else if let problem = send(Array(request.utf8), on: fd, deadline: deadline) {
            return .failure(problem)
        } else {
            answer = readStatusLine(from: fd, deadline: deadline)
        }
        switch answer {
        case .failure(let problem): return .failure(problem)
        case .success(let line): return parseStatus(line)
        }
    }

    /// The status and body of the answer to `GET target.path` (read until the server closes).
    static func get(_ target: HealthTarget, timeoutMilliseconds: Int) -> Result<(status: Int, body: [UInt8]), HealthProblem> {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeoutMilliseconds) * 1_000_000
        let fd: Int32
        switch connect(to: target, deadline: deadline) {
        case .success(let connected): fd = connected
        case .failure(let problem): return .failure(problem)
        }
        defer { close(fd) }
        let request = "GET \(target.path) HTTP/1.0\r\nHost: \(target.address)\r\n"
            + (target.bearer.map { "Authorization: Bearer \($0)\r\n" } ?? "")
            + "User-Agent: pushbridge\r\nConnection: close\r\n\r\n"
        if let problem = send(Array(request.utf8), on: fd, deadline: deadline) { return .failure(problem) }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while received.count < 64 << 20 {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { received += chunk[..<n]; continue }
            if n == 0 { break }
            if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                if let problem = wait(fd, for: Int32(POLLIN), deadline: deadline, step: "read") { return .failure(problem) }
                continue
            }
            return .failure(.errno(errno, "read"))
        }
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let newline = received.firstIndex(of: UInt8(ascii: "\n")),
              let end = (0...max(0, received.count - 4)).first(where: { received[$0..<min($0 + 4, received.count)].elementsEqual(separator) })
        else { return .failure(HealthProblem(reason: "not an HTTP answer")) }
        return parseStatus(line(received[..<newline])).map { ($0, Array(received[(end + 4)...])) }
    }

    /// `HTTP/1.1 200 OK` → 200.
    static func parseStatus(_ line: String) -> Result<Int, HealthProblem> {
        let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), parts[1].count == 3,
              let code = Int(parts[1]) else {
            return .failure(HealthProblem(reason: "not an HTTP answer: '\(line.prefix(80))'"))
        }
        return .success(code)
    }

    /// Milliseconds left before `deadline` (0 when it has passed).
    private static func remaining(_ deadline: UInt64) -> Int32 {
        let now = DispatchTime.now().uptimeNanoseconds
        return now >= deadline ? 0 : Int32(min((deadline - now) / 1_000_000 + 1, UInt64(Int32.max)))
    }

    /// Waits for `events` on `fd`; `nil` when ready, else the timeout or poll error.
    static func wait(_ fd: Int32, for events: Int32, deadline: UInt64, step: String) -> HealthProblem? {
        while true {
            let left = remaining(deadline)
            if left == 0 { return HealthProblem(reason: "\(step): no answer within \(HealthCommand.timeoutMilliseconds) ms") }
            var entry = pollfd(fd: fd, events: Int16(events), revents: 0)
            let n = poll(&entry, 1, left)
            if n > 0 { return nil }
            if n == 0 { continue }
            if errno == EINTR { continue }
            return .errno(errno, step)
        }
    }

    /// A connected non-blocking socket to the first address of `target` that accepts.
    private static func connect(to target: HealthTarget, deadline: UInt64) -> Result<Int32, HealthProblem> {
        let addresses: [SocketAddress]
        do { addresses = try target.address.socketAddresses() } catch { return .failure(HealthProblem(reason: "\(error)")) }
        var lastProblem = HealthProblem(reason: "no address for '\(target.address.host)'")
        for address in addresses {
            let fd = address.makeSocket()
            if fd < 0 { lastProblem = .errno(errno, "socket"); continue }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            if address.withSockaddr({ Glibc.connect(fd, $0, $1) }) == 0 { return .success(fd) }
            guard errno == EINPROGRESS else { lastProblem = .errno(errno, "connect"); close(fd); continue }
            if let problem = wait(fd, for: Int32(POLLOUT), deadline: deadline, step: "connect") {
                close(fd)
                return .failure(problem)
            }
            var soError: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            if getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length) != 0 { soError = errno }
            if soError == 0 { return .success(fd) }
            lastProblem = .errno(soError, "connect")
            close(fd)
        }
        return .failure(lastProblem)
    }

    /// Writes all of `bytes`; `nil` on success.
    private static func send(_ bytes: [UInt8], on fd: Int32, deadline: UInt64) -> HealthProblem? {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n > 0 { offset += n; continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                if let problem = wait(fd, for: Int32(POLLOUT), deadline: deadline, step: "send") { return problem }
                continue
            }
            return .errno(errno, "send")
        }
        return nil
    }

    /// Reads until the first line ends (or the peer closes) and returns that line.
    private static func readStatusLine(from fd: Int32, deadline: UInt64) -> Result<String, HealthProblem> {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1_024)
        while received.count < 8_192 {
            if let newline = received.firstIndex(of: UInt8(ascii: "\n")) {
                return .success(line(received[..<newline]))
            }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { received += chunk[..<n]; continue }
            if n == 0 {
                if received.isEmpty { return .failure(HealthProblem(reason: "the server closed the connection without an answer")) }
                return .success(line(received[...]))
            }
            if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                if let problem = wait(fd, for: Int32(POLLIN), deadline: deadline, step: "read") { return .failure(problem) }
                continue
            }
            return .failure(.errno(errno, "read"))
        }
        return .failure(HealthProblem(reason: "the status line is longer than 8 KiB"))
    }

    static func line(_ bytes: ArraySlice<UInt8>) -> String {
        var text = String(decoding: bytes, as: UTF8.self)
        if text.hasSuffix("\r") { text.removeLast() }
        return text
    }
}
