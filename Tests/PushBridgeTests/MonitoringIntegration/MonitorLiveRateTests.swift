import Foundation
import Synchronization
import Testing
@testable import PushBridge

/// `pushbridge monitor` reads the live stream (`/api/events`) when `monitoring.http` answers:
/// `RATE/S` is then per second between live snapshots, even for `--once`. Without an answer
/// it falls back to the stats topic.
@Suite("Monitoring integration: pushbridge monitor on the live stream")
struct MonitorLiveRateTests {
    @Test("monitor --once shows a live RATE/S for a topic receiving a steady stream")
    func liveRate() async throws {
        let running = try await MonitorCommandTests.Running.start()
        let sender = try await TestClient.connected(to: running.broker)
        let topic = "\(running.prefix)/sensor/attic"
        let sending = Task {
            for i in 0..<200 where !Task.isCancelled {
                _ = try? sender.publish(topic, "{\"t\":\(i)}", qos: 0)
                try? await Task.sleep(for: .milliseconds(40))  // the steady rate under test (25/s)
            }
        }
        // The topic is in the stats before the monitor starts.
        try await running.watcher.waitFor("the attic topic counted") { count($0, "topics", topic, "received") >= 5 }
        var env = PushbridgeBinary.environment
        env["COLUMNS"] = "200"
        let result = try await ManagedProcess.run(try PushbridgeBinary.located(), ["monitor", "--once", "-c", running.config],
                                                  environment: env, timeout: .seconds(30))
        sending.cancel()
        _ = await sending.value
        sender.stop()
        // Not `running.stop()`: it expects only the 6 messages it sent.
        let exit = await running.bridge.terminate(grace: .seconds(10))
        running.watcher.stop()
        #expect(exit.status == 0 && exit.exitedNormally)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let row = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix(topic) }, "\(result.stdout)")
        let cells = MonitorCommandTests.cells(String(row))
        let rate = try #require(Double(cells[5]), "RATE/S is not a number: \(row)")
        #expect(rate > 0, "\(row)")
        // The door topic gets nothing now: its rate is 0.0, not "-".
        let door = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("\(running.prefix)/door/front") })
        #expect(MonitorCommandTests.cells(String(door))[5] == "0.0", "\(door)")
    }

    @Test("with monitoring.http not answering, monitor falls back to the stats topic")
    func fallsBackToTheStatsTopic() async throws {
        let running = try await MonitorCommandTests.Running.start()
        let dead = try LoopbackPorts.free()
        let text = try String(contentsOfFile: running.config, encoding: .utf8)
            .replacingOccurrences(of: #"http: "127.0.0.1:\d+""#, with: "http: \"127.0.0.1:\(dead)\"", options: .regularExpression)
        let config = try writeTempFile(text, name: "monitor.yml")
        var env = PushbridgeBinary.environment
        env["COLUMNS"] = "160"
        let result = try await ManagedProcess.run(try PushbridgeBinary.located(), ["monitor", "--once", "-c", config],
                                                  environment: env, timeout: .seconds(30))
        await running.stop()
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("\(running.prefix)/door/front"), "\(result.stdout)")
    }
}
