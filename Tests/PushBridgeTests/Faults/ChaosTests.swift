import Foundation
import Testing
@testable import PushBridge

/// SIGKILL the running bridge again and again during a QoS 1 stream: with the journal,
/// every message reaches the display topic at least once, and duplicates keep their id.
@Suite("Chaos", .serialized)
struct ChaosTests {
    static let messages = 20_000
    static let topics = 8
    static let kills = 10

    @Test("20 000 QoS 1 messages, 10 SIGKILLs of pushbridge run: nothing lost, duplicates carry the same id",
          .timeLimit(.minutes(3)))
    func killDuringStream() async throws {
        let broker = try TestBroker()
        let prefix = uniqueName("chaos")
        let journal = FileManager.default.temporaryDirectory.appendingPathComponent(uniqueName("journal")).path
        defer { try? FileManager.default.removeItem(atPath: journal) }
        let config = try writeTempFile(FaultSupport.config(
            broker: broker, clientID: uniqueName("bridge"), prefix: prefix, journalPath: journal))
        let display = try await TestClient.connected(to: broker, subscriptions: [MQTTSubscription(filter: "display/\(prefix)/#", qos: 1)])
        var bridge = try await PushbridgeBinary.start(configFile: config, broker: broker)
        let publisher = try await TestClient.connected(to: broker)

        let publishing = Task.detached {
            for n in 0..<Self.messages {
                try publisher.publish("\(prefix)/t\(n % Self.topics)", "\(n)", qos: 1)
                // Keep the client's queue short so the stream lasts across the kills.
                while publisher.client.unacknowledgedCount > 500 { try await Task.sleep(for: .milliseconds(2)) }
            }
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<Self.kills {
            // The time between kills is what this test varies (not a synchronisation).
            try await Task.sleep(for: .milliseconds(Int.random(in: 100...500, using: &generator)))
            bridge.send(SIGKILL)
            _ = await bridge.waitForExit(timeout: .seconds(10))
            bridge = try PushbridgeBinary.run(configFile: config)
        }
        try await publishing.value
        try await publisher.waitUntilAcknowledged("publisher flushed", timeout: .seconds(60))

        var ids: [Int: Set<String>] = [:]
        var copies = 0
        try await eventually("all \(Self.messages) bodies on the display topic, have \(ids.count)", timeout: .seconds(120)) {
            ids = [:]
            copies = 0
            for m in display.messages {
                guard let (body, id) = FaultSupport.bodyAndID(m), let n = Int(body) else { continue }
                ids[n, default: []].insert(id)
                copies += 1
            }
            if !bridge.isRunning { throw ProcessError(description: "bridge exited: \(bridge.stderr.suffix(800))") }
            return ids.count == Self.messages
        }
        let result = await bridge.terminate(grace: .seconds(20))
        #expect(result.exitedNormally && result.status == 0, "stderr: \(result.stderr.suffix(800))")
        let duplicates = copies - Self.messages
        print("chaos: \(Self.kills) SIGKILLs, \(Self.messages) messages, \(copies) display messages, \(duplicates) duplicate(s)")
        #expect(Set(ids.keys) == Set(0..<Self.messages))
        let changedID = ids.filter { $0.value.count > 1 }
        #expect(changedID.isEmpty, "duplicates with a different id: \(changedID.prefix(5))")
    }
}
