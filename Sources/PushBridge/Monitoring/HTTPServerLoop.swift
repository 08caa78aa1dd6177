import Foundation
import Synchronization

/// The serving thread of `MetricsServer`: one `poll` loop over the listening socket, a
/// wake-up pipe (stop) and at most `maxConnections` clients. Each client is read until the
/// end of its request head, answered once (`Connection: close`) and closed; one that sends
/// nothing complete within `idleTimeout` is closed, as is one whose head passes
/// `maxRequestHead` bytes (after a 431).
///
/// `Sendable`: the descriptors are `let`s fixed at init, the connections live in the
/// thread's own frame, and `stop` only writes to the pipe, waits for the thread and closes.
final class HTTPServerLoop: Sendable {
    static let maxConnections = 32
    static let maxRequestHead = 8192
    static let idleTimeout: Duration = .seconds(10)

    private let listenFD: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let handler: MetricsHandler
    /// (thread started, stop requested).
    private let state = Mutex<(started: Bool, stopped: Bool)>((false, false))
    private let finished = DispatchSemaphore(value: 0)

    /// Takes over `fd` (a listening socket) on success; `nil` (the caller keeps `fd`) when
    /// the wake-up pipe cannot be made.
    init?(listening fd: Int32, handler: MetricsHandler) {
        var pair: [Int32] = [-1, -1]
        guard pipe(&pair) == 0 else { return nil }   // pipe2 and accept4 are not in Glibc's module
        for p in pair { Self.configure(p) }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        listenFD = fd
        wakeRead = pair[0]
        wakeWrite = pair[1]
        self.handler = handler
    }

    /// Starts the serving thread (which holds `self` until `stop`).
    func start(name: String) {
        state.withLock { $0.started = true }
        let thread = Thread { [self] in
            run()
            finished.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Ends the thread (a request in progress is finished first) and closes every socket.
    /// Idempotent.
    func stop() {
        let (first, started) = state.withLock { s -> (Bool, Bool) in
            defer { s.stopped = true }
            return (!s.stopped, s.started)
        }
        guard first else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        if started { finished.wait() }
        close(listenFD)
        close(wakeRead)
        close(wakeWrite)
    }

    /// Non-blocking and close-on-exec (the extension process must not inherit it).
    private static func configure(_ fd: Int32) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC)
    }

    /// One client: what it sent so far, what is left to send, and when it is given up.
    private struct Connection {
        var fd: Int32
        var input: [UInt8] = []
        var output: [UInt8] = []
        var sent = 0
        var deadline: ContinuousClock.Instant
        var answered: Bool { !output.isEmpty }
    }

    private func run() {
        var connections: [Connection] = []
        defer { for c in connections { close(c.fd) } }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let accepting = connections.count < Self.maxConnections
            var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: accepting ? listenFD : -1, events: Int16(POLLIN), revents: 0)]
            for c in connections {
                fds.append(pollfd(fd: c.fd, events: Int16(c.answered ? POLLOUT : POLLIN), revents: 0))
            }
            let now = ContinuousClock.now
            var timeout: Int32 = -1
            if let nearest = connections.map(\.deadline).min() {
                let left = nearest - now
                timeout = left <= .zero ? 0 : Int32(min(left.components.seconds * 1000
                                                        + left.components.attoseconds / 1_000_000_000_000_000 + 1, 10_000))
            }
            if poll(&fds, nfds_t(fds.count), timeout) < 0, errno != EINTR { return }
            if fds[0].revents != 0 { return }   // stop
            let after = ContinuousClock.now
            var kept: [Connection] = []
            for (i, connection) in connections.enumerated() {
                if let c = serve(connection, events: fds[i + 2].revents, now: after, buffer: &buffer) {
                    kept.append(c)
                }
            }
            connections = kept
            if accepting, fds[1].revents & Int16(POLLIN) != 0 {
                while connections.count < Self.maxConnections {
                    let fd = accept(listenFD, nil, nil)
                    if fd < 0 { break }
                    Self.configure(fd)
                    connections.append(Connection(fd: fd, deadline: after + Self.idleTimeout))
                }
            }
        }
    }

    /// Advances one client; `nil` when it is done (and closed).
    private func serve(_ connection: Connection, events: Int16, now: ContinuousClock.Instant,
                       buffer: inout [UInt8]) -> Connection? {
        var c = connection
        if events != 0, !c.answered {
            let n = recv(c.fd, &buffer, buffer.count, 0)
            if n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                close(c.fd)
                return nil
            }
            if n > 0 {
                c.input += buffer[0..<n]
                if let response = answer(c.input) {
                    c.output = response
                } else if c.input.count > Self.maxRequestHead {
                    c.output = HTTPResponse(status: 431, body: "request head too large\n").serialized(head: false)
                }
            }
        }
        if c.answered {
            while c.sent < c.output.count {
                let n = c.output.withUnsafeBytes { bytes in
                    send(c.fd, bytes.baseAddress! + c.sent, bytes.count - c.sent, Int32(MSG_NOSIGNAL))
                }
                if n > 0 { c.sent += n; continue }
                if n < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { break }
                close(c.fd)
                return nil
            }
            if c.sent == c.output.count {
                _ = shutdown(c.fd, Int32(SHUT_WR))
                close(c.fd)
                return nil
            }
        }
        if now >= c.deadline {
            close(c.fd)
            return nil
        }
        return c
    }

    /// The response bytes once `input` holds a whole request head; `nil` before that.
    func answer(_ input: [UInt8]) -> [UInt8]? {
        guard let end = Self.headEnd(input) else { return nil }
        guard let (method, path) = Self.requestLine(input[..<end]) else {
            return HTTPResponse(status: 400, body: "bad request\n").serialized(head: false)
        }
        return handler.respond(method: method, path: path).serialized(head: method == "HEAD")
    }

    /// Where the request head ends (the blank line: CRLF CRLF, or LF LF), if it has.
    static func headEnd(_ input: [UInt8]) -> Int? {
        var i = 0
        while i + 1 < input.count {
            if input[i] == 10 {
                if input[i + 1] == 10 { return i }
                if input[i + 1] == 13, i + 2 < input.count, input[i + 2] == 10 { return i }
            }
            i += 1
        }
        return nil
    }

    /// Method and path (without the query) of `METHOD SP target SP HTTP/x.y`; `nil` when
    /// the line is not one.
    static func requestLine(_ head: ArraySlice<UInt8>) -> (String, String)? {
        let line = head.prefix { $0 != 13 && $0 != 10 }
        let parts = line.split(separator: 32, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2].starts(with: Array("HTTP/".utf8)), let first = parts[1].first,
              first == UInt8(ascii: "/") else { return nil }
        let target = parts[1].prefix { $0 != UInt8(ascii: "?") }
        return (String(decoding: parts[0], as: UTF8.self), String(decoding: target, as: UTF8.self))
    }
}
