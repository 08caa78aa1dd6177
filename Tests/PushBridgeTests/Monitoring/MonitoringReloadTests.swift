import Testing
@testable import PushBridge

/// SIGHUP and `monitoring:`: every monitoring setting needs a restart, and a reload that
/// changes any of them says so (docs/operations.md, "Reload (SIGHUP)").
@Suite struct MonitoringReloadTests {
    static let routes = "routes:\n  - {name: a, topic: a/#}\n"
    static let warning = "the monitoring section changed; restart pushbridge to use it"

    func bridge(_ monitoring: String) throws -> Bridge {
        try InProcessBridge.make(config: try loadConfig(Self.routes + monitoring), logger: BridgeLogger(level: .error, sink: { _ in }))
    }

    func reload(from old: String, to new: String) async throws -> Bridge.ReloadResult {
        let b = try bridge(old)
        defer { b.pipeline.shutdown() }
        return await b.apply(try loadConfig(Self.routes + new))
    }

    @Test func anUnchangedMonitoringSectionWarnsOfNothing() async throws {
        let m = "monitoring: {stats_topic: null, trace_topic: t/trace}\n"
        #expect(try await reload(from: m, to: m) == .applied(warnings: []))
    }

    @Test func aChangedIntervalNeedsARestart() async throws {
        #expect(try await reload(from: "monitoring: {stats_topic: null}\n", to: "monitoring: {stats_topic: null, interval: 30s}\n")
            == .applied(warnings: [Self.warning]))
    }

    @Test(arguments: [
        ("monitoring: {stats_topic: null}\n", "monitoring: {stats_topic: null, trace_topic: t/trace}\n"),
        ("monitoring: {stats_topic: null, trace_topic: t/trace}\n", "monitoring: {stats_topic: null, trace_topic: t/other}\n"),
        ("monitoring: {stats_topic: null, trace_topic: t/trace}\n", "monitoring: {stats_topic: null}\n"),
    ])
    func aChangedTraceTopicNeedsARestart(old: String, new: String) async throws {
        #expect(try await reload(from: old, to: new) == .applied(warnings: [Self.warning]))
    }

    @Test func theRunningTraceTopicStaysUntilARestart() async throws {
        let b = try bridge("monitoring: {stats_topic: null, trace_topic: t/trace}\n")
        defer { b.pipeline.shutdown() }
        _ = await b.apply(try loadConfig(Self.routes + "monitoring: {stats_topic: null, trace_topic: t/other}\n"))
        #expect(b.pipeline.config.monitoring.traceTopic == "t/trace")
        #expect(b.feed.traceTopic == "t/trace")
    }
}
