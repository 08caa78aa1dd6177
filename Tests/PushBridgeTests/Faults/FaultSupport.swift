import Foundation
import Synchronization
@testable import PushBridge

/// Helpers for the fault tests: a bridge.yml for a test broker, the built `pushbridge`
/// binary, and reading display messages.
enum FaultSupport {
    /// The `pushbridge` built beside the tests (`swift build --build-tests` builds it).
    static var binary: String { pushbridgeBinary }

    /// A config text: one text route on `prefix/+`, display `display/{{ topic }}` at QoS 1,
    /// optionally a journal in `journalPath`, a fast reconnect, no status or stats topics.
    static func config(broker: TestBroker, clientID: String, prefix: String, journalPath: String?,
                       logLevel: String = "info", extra: String = "") -> String {
        var text = """
            broker:
              host: 127.0.0.1
              port: \(broker.port)
              client_id: \(clientID)
              keepalive: 10s
              reconnect: {min: 100ms, max: 400ms}
            routes:
              - name: faults
                topic: "\(prefix)/+"
                qos: 1
                input: text
                mutable_content: false
                alert:
                  body: "{{ raw }}"
            display:
              topic: "display/{{ topic }}"
              qos: 1
            monitoring:
              status_topic: null
              stats_topic: null
              log_level: \(logLevel)

            """
        if let journalPath {
            text += """
                journal:
                  path: \(journalPath)
                  fsync: never

                """
        }
        return text + extra
    }

    /// Writes `text` to a fresh temp file and returns its path.
    static func writeTemp(_ text: String, name: String = "bridge.yml") throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pushbridge-faults-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Starts `pushbridge run -c config` and waits until it has connected (its log says so).
    static func startBridge(config: String, waitForConnection: Bool = true) async throws -> ManagedProcess {
        let p = try ManagedProcess(binary, ["run", "-c", config])
        if waitForConnection {
            try await eventually("bridge connected; stderr: \(p.stderr.suffix(800))", timeout: .seconds(30)) {
                if !p.isRunning { throw ProcessError(description: "bridge exited: \(p.stderr.suffix(800))") }
                return p.stderr.contains("connected to")
            }
            // The SUBSCRIBE follows the CONNACK at once; give the broker a moment to install it.
            try await Task.sleep(for: .milliseconds(200))
        }
        return p
    }

    /// (`body`, `id`) of a JSON display message.
    static func bodyAndID(_ m: InboundMessage) -> (body: String, id: String)? {
        guard case .object(let o)? = try? JSONValue.parse(m.payload),
              case .string(let body)? = o["body"], case .string(let id)? = o["id"] else { return nil }
        return (body, id)
    }
}
