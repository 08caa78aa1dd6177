import Foundation
import Testing
@testable import PushBridge

/// `monitoring.http_auth` on a running bridge: its server asks for the token read from the file,
/// the probes stay open, and the log names the file, never the token.
@Suite("Monitoring integration: HTTP access on a running bridge")
struct HTTPAccessBridgeTests {
    @Test func theRunningServerAsksForTheToken() async throws {
        let broker = try TestBroker()
        let http = try LoopbackPorts.free()
        let token = "bridge-http-token-\(UUID().uuidString)"
        let tokenFile = try writeTempFile(token + "\n", name: "pushbridge_http_token")
        let bridge = try InProcessBridge.start(yaml: brokerSection(broker, clientID: uniqueName("bridge")) + """

            routes:
              - {name: a, topic: "\(uniqueName("ha"))/#"}
            monitoring:
              interval: 200ms
              http: "127.0.0.1:\(http)"
              http_auth: {token_file: "\(tokenFile)"}
            """)
        try await waitUntilReady(port: http)
        #expect(try rawHTTP("GET", "/healthz", port: http).status == 200)
        #expect(try rawHTTP("GET", "/metrics", port: http).status == 401)
        #expect(try rawHTTP("GET", "/metrics", port: http, headers: ["Authorization: Bearer nope"]).status == 401)
        let metrics = try rawHTTP("GET", "/metrics", port: http, headers: ["Authorization: Bearer \(token)"])
        #expect(metrics.status == 200)
        #expect(PrometheusChecker(metrics.body).value("pushbridge_http_auth_failures_total") == 1)
        #expect(try rawHTTP("GET", "/", port: http).body.contains("action=/login"))
        try await bridge.stop()
        #expect(bridge.log.contains("access: the token of \(tokenFile)"))
        #expect(!bridge.log.contains(token))
    }
}
