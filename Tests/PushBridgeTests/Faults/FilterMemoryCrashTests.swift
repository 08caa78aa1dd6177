import Foundation
import Testing
@testable import PushBridge

/// The memory of `changed` survives a crash when the journal is set.
@Suite("Faults: filter memory across SIGKILL", .serialized)
struct FilterMemoryCrashTests {
    @Test("SIGKILL between two identical reports: the second is still suppressed by changed after the restart",
          .timeLimit(.minutes(2)))
    func changedSurvivesKill() async throws {
        let broker = try TestBroker()
        let prefix = uniqueName("fm")
        let journal = FileManager.default.temporaryDirectory.appendingPathComponent(uniqueName("journal")).path
        defer { try? FileManager.default.removeItem(atPath: journal) }
        let config = try writeTempFile(FaultSupport.config(
            broker: broker, clientID: uniqueName("bridge"), prefix: prefix, journalPath: journal,
            extra: """
            entitlements: [com.apple.developer.usernotifications.filtering]
            extension:
              filters:
                - name: door-changed
                  changed: {key: "{{ topic }}", value: "{{ raw | trim }}"}

            """).replacingOccurrences(of: "mutable_content: false", with: "mutable_content: true"))
        let display = try await TestClient.connected(to: broker, subscriptions: [MQTTSubscription(filter: "display/\(prefix)/#", qos: 1)])
        let publisher = try await TestClient.connected(to: broker)
        var bridge = try await PushbridgeBinary.start(configFile: config, broker: broker)

        // Home Assistant statestream: the door is open (a trailing newline, as some publishers send).
        try publisher.publish("\(prefix)/front_door", "on\n", qos: 1)
        _ = try await display.waitForMessages(count: 1, timeout: .seconds(20))
        // Wait until the batch writer has stored the value (at most every 500 ms).
        let db = try SQLiteDatabase(path: journal + "/" + Journal.fileName)
        try await eventually("the filter memory row is written", timeout: .seconds(20)) {
            (try? db.scalar("SELECT count(*) FROM filter_memory")) == "1"
        }
        bridge.send(SIGKILL)
        _ = await bridge.waitForExit(timeout: .seconds(10))

        bridge = try await PushbridgeBinary.start(configFile: config, broker: broker)
        #expect(bridge.stderr.contains("filter memory: 1 key(s) restored from the journal"), "\(bridge.stderr.suffix(800))")
        // The same state again (statestream republishes on an attribute change), then a real change.
        try publisher.publish("\(prefix)/front_door", "on", qos: 1)
        try publisher.publish("\(prefix)/front_door", "off", qos: 1)
        let shown = try await display.waitForMessages(count: 2, timeout: .seconds(20))
        let bodies = shown.compactMap { FaultSupport.bodyAndID($0)?.body }
        #expect(bodies == ["on\n", "off"], "the repeat after the crash must stay suppressed")
        let result = await bridge.terminate(grace: .seconds(20))
        #expect(result.exitedNormally && result.status == 0, "stderr: \(result.stderr.suffix(800))")
        publisher.stop()
        display.stop()
    }
}
