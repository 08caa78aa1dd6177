import Foundation
import Testing
@testable import PushBridge

/// SIGHUP and `state:`: where the memory lives stays as the bridge started until a restart.
@Suite struct StateReloadTests {
    @Test func theRunningStateStaysUntilARestart() async throws {
        let dir = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let base = "routes:\n  - {name: a, topic: a/#, share: g}\nmonitoring: {status_topic: null, stats_topic: null}\n"
            + "journal: {path: \(dir)/journal}\n"
        let b = try InProcessBridge.make(config: try loadConfig(base + "state:\n  redis: {url: 'redis://127.0.0.1:1/0', prefix: 'a:'}\n"),
                                         logger: BridgeLogger(level: .error, sink: { _ in }))
        let result = await b.apply(try loadConfig(base + "state:\n  redis: {url: 'redis://127.0.0.1:1/0', prefix: 'b:'}\n"))
        #expect(result == .applied(warnings: ["the state section changed; restart pushbridge to use it"]))
        #expect(b.pipeline.config.state?.redis?.prefix == "a:")
        #expect(b.pipeline.sharedMemory != nil)
        let dropped = await b.apply(try loadConfig(base))
        #expect(dropped == .applied(warnings: ["the state section changed; restart pushbridge to use it"]))
        #expect(b.pipeline.sharedMemory != nil, "the filters still decide in Redis")
        b.pipeline.shutdown()
        b.state?.stop()
    }
}
