import Testing
@testable import PushBridge

/// SIGHUP and `partition:`: the running partition stays until a restart, and a reload that
/// would combine it with `share:` is refused.
@Suite struct PartitionReloadTests {
    static let base = "routes:\n  - {name: a, topic: a/#}\nmonitoring: {status_topic: null, stats_topic: null}\n"

    func bridge(_ yaml: String) throws -> Bridge {
        try InProcessBridge.make(config: try loadConfig(yaml), logger: BridgeLogger(level: .error, sink: { _ in }))
    }

    @Test func theRunningPartitionStaysUntilARestart() async throws {
        let b = try bridge(Self.base + "partition: {index: 0, count: 2}\n")
        #expect(b.flow.partition == Partition(index: 0, count: 2))
        let result = await b.apply(try loadConfig(Self.base + "partition: {index: 1, count: 3}\n"))
        #expect(result == .applied(warnings: ["the partition changed; restart pushbridge to use it"]))
        #expect(b.pipeline.config.partition == PartitionConfig(index: 0, count: 2))
        #expect(b.flow.partition == Partition(index: 0, count: 2))
        b.pipeline.shutdown()
    }

    @Test func aReloadAddingShareToAPartitionedBridgeIsRefused() async throws {
        let b = try bridge(Self.base + "partition: {index: 0, count: 2}\n")
        let shared = try loadConfig("routes:\n  - {name: a, topic: a/#, share: g}\nmonitoring: {status_topic: null, stats_topic: null}\n")
        guard case .refused(let errors) = await b.apply(shared) else {
            Issue.record("the reload was applied")
            return
        }
        #expect(errors == ["route 'a' has 'share:' while this bridge runs with partition 0 of 2; 'share' and 'partition' cannot be combined (restart pushbridge to change the partition)"])
        #expect(b.pipeline.config.routes.first?.share == nil)
        b.pipeline.shutdown()
    }

    @Test func theNewFilesWarningsAreReported() async throws {
        let b = try bridge(Self.base)
        let yaml = "routes:\n  - {name: a, topic: a/#, share: g}\nmonitoring: {status_topic: null, stats_topic: null}\n"
            + "extension:\n  filters:\n    - dedupe: {key: \"{{ topic }}\", window: 1m}\n"
        guard case .applied(let warnings) = await b.apply(try loadConfig(yaml)) else {
            Issue.record("refused")
            return
        }
        #expect(warnings.count == 1 && warnings[0].hasPrefix("bridge.yml:2:27: warning: route 'a' subscribes with 'share: g'"), "\(warnings)")
        b.pipeline.shutdown()
    }
}
