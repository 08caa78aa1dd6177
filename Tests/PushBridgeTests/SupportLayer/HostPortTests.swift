import Foundation
import Testing
@testable import PushBridge

/// `true` when this machine can bind a TCP socket to `::1` (IPv6 loopback).
let ipv6LoopbackAvailable: Bool = {
    guard let sa = try? HostPort(host: "::1", port: 0).socketAddresses(passive: true).first else { return false }
    let fd = sa.makeSocket()
    guard fd >= 0 else { return false }
    defer { close(fd) }
    return sa.withSockaddr { bind(fd, $0, $1) } == 0
}()

/// One `host:port` parser for `check`, `run` and `health` (issue 13): they agree, and IPv6 works.
@Suite struct HostPortTests {
    @Test func parsesAndRejectsWithTheConfigWording() throws {
        for (text, host, port) in [("127.0.0.1:9464", "127.0.0.1", 9464), ("0.0.0.0:1", "0.0.0.0", 1),
                                   ("localhost:65535", "localhost", 65535), ("[::1]:9464", "::1", 9464)] {
            let parsed = try HostPort(parsing: text)
            #expect(parsed == HostPort(host: host, port: port) && parsed.description == text)
        }
        for (bad, problem) in [(":9464", "the host is empty; use 0.0.0.0 for every interface"),
                               ("host:", "the port must be 1 to 65535, got ''"),
                               ("host:0", "the port must be 1 to 65535, got '0'"),
                               ("::1:9464", "write an IPv6 host in brackets, e.g. \"[::1]:9464\""),
                               ("[::1:9464", "an IPv6 host needs closing ']'"),
                               ("a b:1", "'a b' is not a host name or address"),
                               ("host:12a", "the port must be 1 to 65535, got '12a'"),
                               ("9464", "expected \"host:port\", e.g. \"127.0.0.1:9464\"")] {
            #expect(throws: HostPort.Problem(description: problem), "\(bad)") { try HostPort(parsing: bad) }
        }
        #expect(try HostPort(parsing: "[::1]", defaultPort: 80) == HostPort(host: "::1", port: 80))
        #expect(try HostPort(parsing: "h:0", ports: 0...65_535).port == 0)
        #expect(HostPort(host: "0.0.0.0", port: 1).connectable == HostPort(host: "127.0.0.1", port: 1))
        #expect(HostPort(host: "::", port: 1).connectable == HostPort(host: "::1", port: 1))
    }

    /// Every address `check` accepts, the metrics server parses (and the other way round).
    /// (`http_auth: none`: a wildcard address needs one; only the address is compared here.)
    @Test(arguments: ["127.0.0.1:9464", "[::1]:9464", "[::]:9464", "localhost:9464", "::1:9464", ":9464",
                      "[::1:9464", "127.0.0.1:99999", "a b:1", "9464"])
    func checkAndRunAgree(address: String) {
        let checkAccepts = configErrors("monitoring:\n  http: \"\(address)\"\n  http_auth: none\nroutes: [{topic: a}]\n").isEmpty
        let runAccepts: Bool
        do {
            _ = try MetricsServer.bindAddress(address)
            runAccepts = true
        } catch {
            runAccepts = error != .invalidAddress(address)
        }
        #expect(checkAccepts == runAccepts)
    }

    /// Every printed address keeps an IPv6 host in brackets: `check`'s summary and the broker
    /// client's log lines wrote `broker.host: "::1"` as `::1:1883` (issue 28).
    @Test func printedAddressesKeepIPv6Brackets() throws {
        let config = try loadConfig("broker:\n  host: \"::1\"\nmonitoring:\n  http: \"[::1]:9464\"\nroutes: [{topic: a}]\n")
        let summary = config.describe()
        #expect(summary.contains("broker: [::1]:1883 "), "\(summary)")
        #expect(summary.contains("http=[::1]:9464 "), "\(summary)")
        #expect(MQTTClientOptions(config: config.broker, will: nil, subscriptions: []).endpoint == "[::1]:1883")
    }

    @Test(.enabled(if: ipv6LoopbackAvailable, "skipped: this machine cannot bind ::1 (no IPv6 loopback)"))
    func configuredIPv6AddressServesOverIPv6() throws {
        // A free port on ::1, then `check`'s config, `run`'s server and `health` with that address.
        let port = try MetricsServer(address: "[::1]:0", metrics: { "" }, ready: { true }).port
        let yaml = "monitoring:\n  http: \"[::1]:\(port)\"\nroutes: [{topic: a}]\n"
        let config = try loadConfig(yaml)
        let address = try #require(config.monitoring.http)
        let server = try MetricsServer(address: address, metrics: { "" }, ready: { true })
        defer { server.stop() }
        #expect(server.port == port)

        #expect(try address.socketAddresses()[0].family == AF_INET6)
        let reply = try rawHTTP("GET", "/healthz", port: port, host: "::1")
        #expect(reply.status == 200 && reply.body == "ok")

        let file = try writeTempFile(yaml)
        let health = try ChildProcess(PushbridgeBinary.path, ["health", "-c", file], environment: PushbridgeBinary.environment)
        #expect(health.waitSync(timeout: .seconds(20)).map(ChildProcess.exitCode) == 0)
    }
}
