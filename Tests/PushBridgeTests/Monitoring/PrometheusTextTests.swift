import Foundation
import Testing
@testable import PushBridge

@Suite("Prometheus text")
struct PrometheusTextTests {
    let start = 1_700_000_000.0

    func busySnapshot() -> StatsSnapshot {
        let stats = Stats(maxTopics: 100, version: "1.0 \"beta\"\\x\ny", startedAt: start)
        stats.setConnected(true)
        let plan: [(String, Decision)] = [
            ("home/a", decision(.delivered, route: "door", modified: true, stage: 0.004)),
            ("home/a", decision(.delivered, route: "door", timedOut: true, stage: 31)),
            ("home/b", decision(.suppressed, route: "door", by: "drop \"debug\"", stage: 0.0001)),
            ("home/b", decision(.rejected, route: "lights", reason: .payloadTooLarge)),
            ("odd\\topic\n", decision(.unrouted)),
            ("home/c", decision(.delivered, route: "lights", failed: true, stage: 0.2)),
            ("home/c", decision(.notDisplayed, route: "lights")),
        ]
        for (topic, d) in plan {
            stats.received(topic: topic)
            stats.finished(topic: topic, decision: d)
        }
        stats.received(topic: "home/c")          // one still in flight
        stats.loopDropped(topic: "display/x")
        stats.partitionSkipped()
        stats.partitionSkipped()
        for ms in [0.3, 0.5, 2.0, 40.0] { stats.endToEndLatency(seconds: ms / 1000) }
        return stats.snapshot(now: start + 7.25)
    }

    @Test func outputPassesTheStrictChecker() {
        let checker = PrometheusChecker(prometheusText(busySnapshot(), perTopic: true))
        #expect(checker.errors.isEmpty, "\(checker.errors)")
        #expect(checker.types["pushbridge_extension_duration_seconds"] == "histogram")
        #expect(checker.types["pushbridge_end_to_end_latency_seconds"] == "summary")
        #expect(checker.types["pushbridge_messages_total"] == "counter")
        #expect(checker.types["pushbridge_in_flight"] == "gauge")
    }

    @Test func emptyStatsPassTheChecker() {
        let text = prometheusText(Stats(maxTopics: 1, version: "0", startedAt: start).snapshot(now: start))
        let checker = PrometheusChecker(text)
        #expect(checker.errors.isEmpty, "\(checker.errors)")
        #expect(text.contains("pushbridge_end_to_end_latency_seconds{quantile=\"0.5\"} NaN\n"))
        #expect(checker.value("pushbridge_messages_total", ["route": "", "outcome": "unrouted"]) == 0)
    }

    @Test func valuesMatchTheSnapshot() {
        let c = PrometheusChecker(prometheusText(busySnapshot()))
        #expect(c.value("pushbridge_received_total") == 8)
        #expect(c.value("pushbridge_in_flight") == 1)
        #expect(c.value("pushbridge_broker_connected") == 1)
        #expect(c.value("pushbridge_uptime_seconds") == 7.25)
        #expect(c.value("pushbridge_build_info", ["version": "1.0 \"beta\"\\x\ny"]) == 1)
        #expect(c.value("pushbridge_messages_total", ["route": "door", "outcome": "delivered"]) == 2)
        #expect(c.value("pushbridge_messages_total", ["route": "door", "outcome": "suppressed"]) == 1)
        #expect(c.value("pushbridge_messages_total", ["route": "door", "outcome": "expired"]) == 0)
        #expect(c.value("pushbridge_messages_total", ["route": "lights", "outcome": "rejected"]) == 1)
        #expect(c.value("pushbridge_messages_total", ["route": "lights", "outcome": "not_displayed"]) == 1)
        #expect(c.value("pushbridge_messages_total", ["route": "", "outcome": "unrouted"]) == 1)
        #expect(c.value("pushbridge_messages_total", ["route": "lights", "outcome": "unrouted"]) == nil)
        #expect(c.value("pushbridge_rejected_total", ["reason": "PayloadTooLarge"]) == 1)
        #expect(c.value("pushbridge_rejected_total", ["reason": "BadPriority"]) == 0)
        #expect(c.value("pushbridge_filter_suppressed_total", ["filter": "drop \"debug\""]) == 1)
        #expect(c.value("pushbridge_modified_total") == 1)
        #expect(c.value("pushbridge_timeouts_total") == 1)
        #expect(c.value("pushbridge_extension_failures_total") == 1)
        #expect(c.value("pushbridge_loop_dropped_total") == 1)
        #expect(c.value("pushbridge_partition_skipped_total") == 2)
        #expect(c.value("pushbridge_extension_duration_seconds_count") == 4)
        #expect(c.value("pushbridge_extension_duration_seconds_bucket", ["le": "0.001"]) == 1)
        #expect(c.value("pushbridge_extension_duration_seconds_bucket", ["le": "0.005"]) == 2)
        #expect(c.value("pushbridge_extension_duration_seconds_bucket", ["le": "30"]) == 3)
        #expect(c.value("pushbridge_extension_duration_seconds_bucket", ["le": "+Inf"]) == 4)
        #expect(abs((c.value("pushbridge_extension_duration_seconds_sum") ?? 0) - 31.2041) < 1e-9)
        #expect(c.value("pushbridge_end_to_end_latency_seconds_count") == 4)
        #expect(c.value("pushbridge_topic_messages_total", ["topic": "home/a", "outcome": "delivered"]) == nil)
    }

    @Test func perTopicSeriesAreOptIn() {
        let c = PrometheusChecker(prometheusText(busySnapshot(), perTopic: true))
        #expect(c.value("pushbridge_topic_messages_total", ["topic": "home/a", "outcome": "delivered"]) == 2)
        #expect(c.value("pushbridge_topic_messages_total", ["topic": "odd\\topic\n", "outcome": "unrouted"]) == 1)
    }

    @Test func labelValuesAreEscaped() {
        let text = prometheusText(busySnapshot(), perTopic: true)
        #expect(text.contains(#"pushbridge_build_info{version="1.0 \"beta\"\\x\ny"} 1"#))
        #expect(text.contains(#"{topic="odd\\topic\n",outcome="unrouted"} 1"#))
        #expect(PrometheusWriter.escapeLabel("a\\b\"c\nd") == #"a\\b\"c\nd"#)
        #expect(PrometheusWriter.escapeHelp("a\\b\nc\"") == #"a\\b\nc""#)
    }

    @Test(arguments: [(Double.nan, "NaN"), (.infinity, "+Inf"), (-.infinity, "-Inf"), (3, "3"), (0.25, "0.25"), (-2, "-2"), (1e-05, "1e-05")])
    func numbersUseGoSyntax(value: Double, text: String) {
        #expect(PrometheusWriter.format(value) == text)
    }

    /// The checker must catch what it claims to catch.
    @Test(arguments: [
        "x_total 1\n",                                                      // no TYPE
        "# TYPE x_total counter\nx_total{a=\"1\\t\"} 1\n",                  // bad escape
        "# TYPE x_total counter\nx_total{a=\"1\"} one\n",                   // bad value
        "# TYPE x counter\nx 1\n",                                          // counter without _total
        "# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n",  // decreasing
        "# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_sum 1\nh_count 1\n",   // no +Inf
        "# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 2\nh_sum 1\nh_count 3\n", // +Inf != count
        "# TYPE a gauge\na 1\n# TYPE b gauge\nb 1\na 2\n",                  // not contiguous
        "# TYPE a gauge\na 1\na 1\n",                                       // duplicate series
        "# TYPE a gauge\n9a 1\n",                                           // bad name
        "# TYPE a gauge\na{__x=\"1\"} 1\n",                                 // reserved label
        "# TYPE a gauge\na 1",                                              // no final newline
        "# TYPE s summary\ns{quantile=\"2\"} 1\ns_sum 1\ns_count 1\n",      // bad quantile
    ])
    func checkerCatchesBrokenText(text: String) {
        #expect(!PrometheusChecker(text).errors.isEmpty)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/promtool")))
    func promtoolAcceptsTheOutput() async throws {
        let r = try await ManagedProcess.run("/usr/bin/promtool", ["check", "metrics"],
                                             stdin: Array(prometheusText(busySnapshot(), perTopic: true).utf8))
        #expect(r.status == 0 && r.exitedNormally && !r.timedOut, "\(r.stdout)\(r.stderr)")
    }
}
