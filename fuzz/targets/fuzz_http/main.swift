// libFuzzer target: the HTTP monitoring endpoint (Monitoring/MetricsServer.swift) as a client
// reaches it: the real libmicrohttpd server on 127.0.0.1, fed raw request bytes over a socket.
//
// One server runs for the whole process, serving a `Stats` that holds topics, routes and
// decisions. Each input is sent as it is on a new connection (the request line, path, query
// string and headers are whatever the fuzzer made), the write side is shut, and the answer is
// read until the server closes or falls idle (a Server-Sent Events stream never closes). Every
// 64 inputs a plain `GET /healthz` must still get `200`: a request that kills, wedges or
// corrupts the server is a crash. Coverage comes from our handlers (libmicrohttpd itself is
// not instrumented), so every path and query a handler parses is reached through the same
// bytes a browser or a scraper would send.
import CFuzzerDriver
import Foundation
@testable import PushBridge

/// The server under test and the stats it serves.
let stats: Stats = {
    let s = Stats(maxTopics: 16, version: "fuzz", startedAt: 1_700_000_000)
    s.setConnected(true)
    for topic in ["home/front/doorbell", "home/üñí/\u{1}", ""] { s.received(topic: topic) }
    return s
}()

let server: MetricsServer = {
    do {
        return try MetricsServer(address: "127.0.0.1:0",
                                 metrics: { prometheusText(stats.snapshot(now: 1_700_000_100), perTopic: true) },
                                 ready: { stats.snapshot(now: 1_700_000_100).connected })
    } catch {
        fatalError("cannot start the metrics server: \(error)")
    }
}()

/// A connected TCP socket to the server, or -1.
func connectToServer() -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return -1 }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(server.port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let ok = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
    if !ok { close(fd); return -1 }
    return fd
}

/// Sends `request`, shuts the write side, and reads the answer: until the server closes, or
/// nothing arrives for `idle` milliseconds once something did (a stream), or for `first`
/// milliseconds before the first byte (an incomplete request gets no answer: the server waits
/// for the rest). Returns what was read.
func exchange(_ request: [UInt8], first: Int32 = 100, idle: Int32 = 5) -> [UInt8] {
    let fd = connectToServer()
    guard fd >= 0 else { fatalError("cannot connect to the metrics server on port \(server.port)") }
    defer { close(fd) }
    var sent = 0
    while sent < request.count {
        let n = request.withUnsafeBytes { send(fd, $0.baseAddress! + sent, request.count - sent, Int32(MSG_NOSIGNAL)) }
        if n <= 0 { break }   // the server may close early on a bad request: that is its right
        sent += n
    }
    _ = shutdown(fd, Int32(SHUT_WR))
    var answer: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 16 * 1024)
    while answer.count < 1 << 20 {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, answer.isEmpty ? first : idle) > 0 else { break }
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n <= 0 { break }
        answer += buffer[0..<n]
    }
    return answer
}

nonisolated(unsafe) var inputs = 0

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzHTTP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let request = Array(UnsafeBufferPointer(start: data, count: size))
    let answer = exchange(request)
    if !answer.isEmpty, !answer.starts(with: Array("HTTP/1.".utf8)) {
        fatalError("the answer is not HTTP: \(String(decoding: answer.prefix(80), as: UTF8.self))")
    }
    inputs += 1
    if inputs % 64 == 0 {
        let health = exchange(Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8), first: 20_000)
        if !health.starts(with: Array("HTTP/1.1 200".utf8)) {
            fatalError("after \(inputs) inputs /healthz answers \(String(decoding: health.prefix(80), as: UTF8.self))")
        }
    }
    return 0
}

_ = server.port   // started before libFuzzer counts allocations
exit(pb_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv, fuzzHTTP))
