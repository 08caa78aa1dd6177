import Foundation
import Testing
@testable import PushBridge

/// The log of `pushbridge run` (the built binary): one line per event in the configured
/// format, levels honoured, payload text only at `debug`.
@Suite("Monitoring integration: log output")
struct LogOutputTests {
    /// Runs the binary with `level` and `format`; sends a marked payload to a delivered, a
    /// rejected and a not-displayed route, waits until all three finished, then SIGTERM.
    /// Returns the marker and the bridge's stderr.
    static func run(level: LogLevel, format: LogFormat) async throws -> (marker: String, stderr: String) {
        let broker = try TestBroker()
        let p = uniqueName("mt")
        let marker = "secret-\(UUID().uuidString)"
        let http = try LoopbackPorts.free()
        let config = try writeTempFile(brokerSection(broker, clientID: uniqueName("bridge")) + """

            routes:
              - {name: alerts, topic: "\(p)/alerts/#", mutable_content: true, alert: {body: "{{ payload.text }}"}}
              - {name: apns, topic: "\(p)/apns/#", input: apns}
              - {name: bg, topic: "\(p)/bg/#", push_type: background}
            extension:
              command: \(try FakeExtensionChild.yaml(.echo))   # `echo <body>` (unusable) before each answer
            display:
              topic: "display/{{ topic }}"
            dead_letter:
              topic: "dead/{{ topic }}"
            monitoring:
              interval: 200ms
              http: "127.0.0.1:\(http)"
              log_level: \(level.rawValue)
              log_format: \(format.rawValue)
            """)
        let watcher = try await StatsWatcher.start(broker)
        defer { watcher.stop() }
        let bridge = try PushbridgeBinary.run(configFile: config)
        do {
            try await waitUntilReady(port: http, timeout: .seconds(30))
            let sender = try await TestClient.connected(to: broker)
            try sender.publish("\(p)/alerts/a", "{\"text\":\"\(marker)\"}")
            try sender.publish("\(p)/apns/a", "\(marker) is not an APNs body")
            try sender.publish("\(p)/bg/a", "{\"text\":\"\(marker)\"}")
            try await watcher.waitFor("3 finished") { count($0, "totals", "received") == 3 && count($0, "in_flight") == 0 }
        } catch {
            bridge.send(SIGKILL)
            throw ProcessError(description: "\(error); bridge stderr: \(bridge.stderr)")
        }
        let result = await bridge.terminate(grace: .seconds(10))
        #expect(result.status == 0 && result.exitedNormally, "exit \(result.status): \(result.stderr)")
        return (marker, result.stderr)
    }

    static let timestampPattern = #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$"#

    @Test("log_format json, log_level debug: every stderr line is a JSON object with ts, level and msg")
    func jsonAtDebug() async throws {
        let (marker, stderr) = try await Self.run(level: .debug, format: .json)
        try #require(stderr.hasSuffix("\n"), "stderr: \(stderr)")
        let lines = stderr.dropLast().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var levels: [String: Int] = [:]
        var messages: [(level: String, msg: String)] = []
        for line in lines {
            let v: JSONValue
            do { v = try decodeJSON(Array(line.utf8)) } catch {
                Issue.record("not JSON: \(line)")
                continue
            }
            guard let ts = v["ts"]?.stringValue, let level = v["level"]?.stringValue, let msg = v["msg"]?.stringValue else {
                Issue.record("missing ts/level/msg: \(line)")
                continue
            }
            #expect(ts.range(of: Self.timestampPattern, options: .regularExpression) != nil, "ts \(ts)")
            #expect(LogLevel(rawValue: level) != nil, "level \(level)")
            levels[level, default: 0] += 1
            messages.append((level, msg))
        }
        #expect(levels["debug", default: 0] > 0, "no debug lines: \(stderr)")
        #expect(messages.contains { $0.level == "info" && $0.msg.contains("started") })
        #expect(messages.contains { $0.level == "info" && $0.msg == "extension: child ready" })
        #expect(messages.contains { $0.level == "info" && $0.msg == "stopped" })
        #expect(messages.contains { $0.level == "warning" && $0.msg.contains("unusable line ignored") })
        // The payload shows up at debug (the child's echo), never above it.
        #expect(messages.contains { $0.level == "debug" && $0.msg.contains(marker) })
        for m in messages where m.level != "debug" {
            #expect(!m.msg.contains(marker), "payload text at \(m.level): \(m.msg)")
        }
    }

    @Test("log_format text, log_level warning: no info or debug lines, and no payload text")
    func textAtWarning() async throws {
        let (marker, stderr) = try await Self.run(level: .warning, format: .text)
        let lines = stderr.split(separator: "\n").map(String.init)
        #expect(!lines.isEmpty, "the unusable child line should have been logged at warning")
        for line in lines {
            let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true).map(String.init)
            try #require(parts.count >= 2, "not a log line: \(line)")
            #expect(parts[0].range(of: Self.timestampPattern, options: .regularExpression) != nil, "line: \(line)")
            #expect(["warning", "error"].contains(parts[1]), "line: \(line)")
        }
        #expect(lines.contains { $0.contains(" warning extension: unusable line ignored") })
        #expect(!stderr.contains(marker), "payload text in the log: \(stderr)")
    }
}
