import Foundation
import Testing
@testable import PushBridge

/// `monitoring.http` on a running bridge: `/metrics` is valid Prometheus text that counts
/// what was sent; `/readyz` follows the broker connection; `/healthz` stays 200.
@Suite("Monitoring integration: HTTP endpoint")
struct HTTPEndpointTests {
    static func config(_ broker: TestBroker, clientID: String, prefix p: String, http: Int) -> String {
        brokerSection(broker, clientID: clientID) + """

        routes:
          - {name: alerts, topic: "\(p)/alerts/#", mutable_content: false, alert: {body: "{{ raw }}"}}
          - {name: telemetry, topic: "\(p)/telemetry/#", push_type: background}
          - {name: passthrough, topic: "\(p)/apns/#", input: apns}
        display:
          topic: "display/{{ topic }}"
        monitoring:
          interval: 200ms
          http: "127.0.0.1:\(http)"
        """
    }

    @Test("/metrics is strict Prometheus text with pushbridge_messages_total{route,outcome} for what was sent")
    func metricsCountWhatWasSent() async throws {
        let broker = try TestBroker()
        let p = uniqueName("mt")
        let http = try LoopbackPorts.free()
        let watcher = try await StatsWatcher.start(broker)
        defer { watcher.stop() }
        let bridge = try InProcessBridge.start(yaml: Self.config(broker, clientID: uniqueName("bridge"), prefix: p, http: http))
        try await waitUntilReady(port: http)

        let sender = try await TestClient.connected(to: broker)
        for i in 0..<3 { try sender.publish("\(p)/alerts/door", "ring \(i)") }
        for _ in 0..<2 { try sender.publish("\(p)/telemetry/t1", #"{"t":21.5}"#) }
        try sender.publish("\(p)/apns/x", "not json")
        try await watcher.waitFor("6 finished") { count($0, "totals", "received") == 6 && count($0, "in_flight") == 0 }

        let response = try httpGet(port: http, path: "/metrics")
        try await bridge.stop()
        #expect(response.status == 200)
        let checker = PrometheusChecker(response.body)
        #expect(checker.errors.isEmpty, "\(checker.errors)")
        func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
            checker.samples.first { s in
                s.name == name && Dictionary(s.labels, uniquingKeysWith: { a, _ in a }) == labels
            }?.value
        }
        #expect(value("pushbridge_messages_total", ["route": "alerts", "outcome": "delivered"]) == 3)
        #expect(value("pushbridge_messages_total", ["route": "telemetry", "outcome": "not_displayed"]) == 2)
        #expect(value("pushbridge_messages_total", ["route": "passthrough", "outcome": "rejected"]) == 1)
        #expect(value("pushbridge_messages_total", ["route": "alerts", "outcome": "suppressed"]) == 0)
        #expect(value("pushbridge_messages_total", ["route": "", "outcome": "unrouted"]) == 0)
        #expect(value("pushbridge_rejected_total", ["reason": "InvalidPayload"]) == 1)
        #expect(value("pushbridge_received_total") == 6)
        #expect(value("pushbridge_broker_connected") == 1)
        #expect(value("pushbridge_in_flight") == 0)
        #expect(checker.types["pushbridge_extension_duration_seconds"] == "histogram")
        #expect(checker.types["pushbridge_messages_total"] == "counter")
        // The sum over routes and outcomes is every finished message.
        let finished = checker.samples.filter { $0.name == "pushbridge_messages_total" }.reduce(0) { $0 + $1.value }
        #expect(finished == 6)

        if FileManager.default.isExecutableFile(atPath: "/usr/bin/promtool") {
            let promtool = try await ManagedProcess.run("/usr/bin/promtool", ["check", "metrics"],
                                                        stdin: Array(response.body.utf8))
            #expect(promtool.status == 0 && promtool.exitedNormally,
                    "promtool: \(promtool.stdout)\(promtool.stderr)")
        }
    }

    @Test("/readyz is 503 while the broker is down and 200 again after it returns; /healthz is 200 throughout")
    func readinessFollowsTheBroker() async throws {
        let broker = try TestBroker()
        let p = uniqueName("mt")
        let http = try LoopbackPorts.free()
        let bridge = try InProcessBridge.start(yaml: Self.config(broker, clientID: uniqueName("bridge"), prefix: p, http: http))
        try await waitUntilReady(port: http)
        #expect(try httpGet(port: http, path: "/healthz").status == 200)
        #expect(try httpGet(port: http, path: "/readyz").body.contains("ready"))

        broker.stop()
        try await eventually("/readyz 503 after the broker stopped", timeout: .seconds(20)) {
            try httpGet(port: http, path: "/readyz").status == 503
        }
        #expect(try httpGet(port: http, path: "/healthz").status == 200)
        // The gauge follows the connection event, logged just after the socket state /readyz reads.
        try await eventually("pushbridge_broker_connected 0", timeout: .seconds(20)) {
            let metrics = PrometheusChecker(try httpGet(port: http, path: "/metrics").body)
            return metrics.samples.first { $0.name == "pushbridge_broker_connected" }?.value == 0
        }

        try broker.start()
        try await waitUntilReady(port: http, timeout: .seconds(30))
        #expect(try httpGet(port: http, path: "/healthz").status == 200)
        // Ready means subscribed again: a message sent now is processed.
        let sender = try await TestClient.connected(to: broker)
        let display = try await TestClient.connected(
            to: broker, subscriptions: [MQTTSubscription(filter: "display/\(p)/#", qos: 1, noLocal: false)])
        try sender.publish("\(p)/alerts/after", "back")
        let got = try await display.waitForMessages(count: 1)
        #expect(got.first?.topic == "display/\(p)/alerts/after")
        try await bridge.stop()
        #expect(bridge.log.contains { $0.contains("disconnected") || $0.contains("lost") },
                "no disconnect logged: \(bridge.log.lines)")
    }
}
