import Foundation
import Synchronization
import Testing
@testable import PushBridge

/// Log lines collected from a bridge run in this process.
final class LineLog: Sendable {
    private let lines = Mutex<[String]>([])

    /// A logger (debug and up) that appends here.
    var logger: Logger { Logger(level: .debug, sink: { [self] line in lines.withLock { $0.append(line) } }) }
    var all: [String] { lines.withLock { $0 } }
    func contains(_ text: String) -> Bool { all.contains { $0.contains(text) } }
}

/// One end-to-end scenario: a private broker, a namespace for its topics, and an observer
/// subscribed to the bridge's outputs (`<ns>/out/#`, `<ns>/dead/#`, status and stats).
///
/// Inputs go under `<ns>/in/…`; the display topic is `<ns>/out/{{ topic }}`, so a message
/// from `<ns>/in/a` is displayed on `<ns>/out/<ns>/in/a`.
struct Scenario: Sendable {
    let broker: TestBroker
    let ns: String
    let observer: TestClient
    let version: MQTTProtocolVersion

    /// Starts a broker (with `options`) and an observer on it.
    static func start(_ options: TestBroker.Options = .init(), version: MQTTProtocolVersion = .v5) async throws -> Scenario {
        let broker = try withUnblockedSignals { try TestBroker(options) }
        let ns = uniqueName("it")
        var o = TestClient.options(broker, version: version, subscriptions: [
            MQTTSubscription(filter: "\(ns)/out/#", qos: 1), MQTTSubscription(filter: "\(ns)/dead/#", qos: 1),
            MQTTSubscription(filter: "\(ns)/status", qos: 1), MQTTSubscription(filter: "\(ns)/stats", qos: 0),
        ])
        if let (user, password) = options.users.first { (o.username, o.password) = (user, password) }
        let observer = try TestClient(options: o)
        observer.start()
        try await observer.waitUntilSubscribed()
        return Scenario(broker: broker, ns: ns, observer: observer, version: version)
    }

    /// An input topic: `<ns>/in/<name>`.
    func input(_ name: String) -> String { "\(ns)/in/\(name)" }
    /// The display topic for the input topic `<ns>/in/<name>`.
    func display(_ name: String) -> String { "\(ns)/out/\(ns)/in/\(name)" }
    /// The dead-letter topic for the input topic `<ns>/in/<name>`.
    func dead(_ name: String) -> String { "\(ns)/dead/\(ns)/in/\(name)" }
    var statusTopic: String { "\(ns)/status" }

    /// A `bridge.yml`: the broker section for this scenario, monitoring on `<ns>/status` and
    /// `<ns>/stats` every 200 ms, the display on `<ns>/out/{{ topic }}`, the dead letter on
    /// `<ns>/dead/{{ topic }}`, then `body` (routes, extension, entitlements…).
    func yaml(_ body: String, clientID: String = uniqueName("bridge"), brokerExtra: String = "",
              display: String = "format: json", port: Int? = nil) -> String {
        """
        broker:
          host: 127.0.0.1
          port: \(port ?? broker.port)
          client_id: \(clientID)
          protocol: \(version == .v5 ? "5" : "\"3.1.1\"")
          keepalive: 5s
          reconnect: {min: 100ms, max: 500ms}
        \(brokerExtra.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
        display:
          topic: "\(ns)/out/{{ topic }}"
        \(display.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
        dead_letter:
          topic: "\(ns)/dead/{{ topic }}"
        monitoring:
          status_topic: \(ns)/status
          stats_topic: \(ns)/stats
          interval: 200ms
          log_level: debug
        \(body)
        """
    }

    /// Messages the observer has seen on exactly `topic`.
    func messages(on topic: String) -> [InboundMessage] { observer.messages.filter { $0.topic == topic } }

    /// Payload texts seen on `topic`.
    func texts(on topic: String) -> [String] { messages(on: topic).map { String(decoding: $0.payload, as: UTF8.self) } }

    /// Waits until `count` messages arrived on `topic`, and returns them.
    @discardableResult
    func waitFor(_ topic: String, count: Int = 1, timeout: Duration = .seconds(10)) async throws -> [InboundMessage] {
        try await eventually("\(count) message(s) on \(topic); all: \(observer.messages.map(\.topic))", timeout: timeout) {
            messages(on: topic).count >= count
        }
        return messages(on: topic)
    }

    /// Restarts the broker (same port and data) so that its new process can receive SIGTERM.
    func restartBroker() throws {
        try withUnblockedSignals { try broker.restart() }
    }

    /// The JSON objects seen on `topic`.
    func json(on topic: String) throws -> [JSONValue] { try messages(on: topic).map { try JSONValue.parse($0.payload) } }

    /// Waits until a live (not retained) `online` is published on the status topic for the `n`-th time:
    /// the bridge sends SUBSCRIBE before it, on the same connection, so its subscriptions are in place.
    func waitUntilOnline(times n: Int = 1, timeout: Duration = .seconds(10)) async throws {
        try await eventually("'online' #\(n) on \(statusTopic): \(texts(on: statusTopic))", timeout: timeout) {
            messages(on: statusTopic).filter { String(decoding: $0.payload, as: UTF8.self) == "online" }.count >= n
        }
    }

    /// The newest stats snapshot's `totals`, when one arrived.
    func totals() -> JSONValue? {
        guard let last = messages(on: "\(ns)/stats").last, let stats = try? JSONValue.parse(last.payload) else { return nil }
        return stats["totals"]
    }

    /// Waits until the newest stats snapshot satisfies `condition`; returns it.
    @discardableResult
    func waitForStats(_ what: String, timeout: Duration = .seconds(10),
                      _ condition: (JSONValue) -> Bool) async throws -> JSONValue {
        try await eventually("stats: \(what); last totals: \(totals()?.jsonText ?? "none")", timeout: timeout) {
            guard let last = messages(on: "\(ns)/stats").last, let stats = try? JSONValue.parse(last.payload) else { return false }
            return condition(stats)
        }
        return try JSONValue.parse(messages(on: "\(ns)/stats").last!.payload)
    }

    /// Publishes `text` on the input topic `<ns>/in/<name>`.
    func publish(_ name: String, _ text: String, qos: Int = 1,
                 properties: [(name: String, value: String)] = []) throws {
        try observer.publish(input(name), text, qos: qos, userProperties: properties)
    }

    /// Publishes raw bytes on the input topic `<ns>/in/<name>`.
    func publish(_ name: String, bytes: [UInt8], qos: Int = 1) throws {
        _ = try observer.client.publish(topic: input(name), payload: bytes, qos: qos, retain: false, userProperties: [])
    }
}

/// A total counter of a stats snapshot (`stats["totals"][name]`), 0 when absent.
func total(_ stats: JSONValue, _ name: String) -> Int64 {
    if case .int(let n)? = stats["totals"]?[name] { return n }
    return 0
}

/// A bridge running in this process: `Bridge(config:logger:)` and `run()` in a task.
final class LiveBridge: Sendable {
    let bridge: Bridge
    let log = LineLog()
    private let task = Mutex<Task<Void, any Error>?>(nil)

    /// Loads `yaml` with the real loader and starts the bridge.
    init(_ yaml: String) throws {
        let config = try ConfigLoader.load(text: yaml, path: "bridge.yml", environment: [:]).get()
        bridge = try Bridge(config: config, logger: log.logger)
        let bridge = self.bridge
        task.withLock { $0 = Task { try await bridge.run() } }
    }

    /// Asks the bridge to drain and waits for `run()` to return.
    func stop() async throws {
        bridge.requestStop()
        guard let t = task.withLock({ $0 }) else { return }
        try await t.value
    }

    deinit {
        bridge.requestStop()
    }
}

/// The `pushbridge` executable of this checkout (`swift build --build-tests` builds it).
enum PushbridgeBinary {
    /// The binary (see `pushbridgeBinary` in Support/Binaries.swift).
    static var path: String { pushbridgeBinary }

    /// Writes `text` to a fresh temp directory as `bridge.yml`; returns its path.
    static func writeConfig(_ text: String, name: String = "bridge.yml") throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pushbridge-it-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let file = dir.appendingPathComponent(name).path
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// Starts `pushbridge run -c <file>` for `yaml`.
    static func run(_ yaml: String) throws -> ManagedProcess {
        let file = try writeConfig(yaml)
        return try withUnblockedSignals {
            try ManagedProcess(path, ["run", "-c", file], environment: ["PATH": "/usr/bin:/bin"].merging(sanitizerEnvironment) { a, _ in a })
        }
    }
}

/// Writes a Python extension child into a temp directory; returns `[python3, -u, path]` as YAML.
func pythonChild(_ script: String) throws -> String {
    let file = try PushbridgeBinary.writeConfig(script, name: "child.py")
    return "[python3, -u, \"\(file)\"]"
}

/// The string inside `value`, or "" when it is absent or not a string.
func jsonString(_ value: JSONValue?) -> String {
    guard let value, case .string(let s) = value else { return "" }
    return s
}

/// Runs `body` with no signal blocked on this thread, then restores the thread's mask.
///
/// Swift concurrency runs on libdispatch worker threads, which block SIGHUP, SIGINT, SIGUSR1,
/// SIGUSR2 and SIGTERM; Foundation's `Process` does not reset the mask, so a child started
/// from such a thread inherits it. A mosquitto started that way never sees the SIGTERM of
/// `TestBroker.stop()` (which then waits forever), and a `pushbridge run` would not be a
/// realistic signal target. Children started inside `body` get an empty mask.
func withUnblockedSignals<T>(_ body: () throws -> T) rethrows -> T {
    var empty = sigset_t()
    sigemptyset(&empty)
    var old = sigset_t()
    pthread_sigmask(SIG_SETMASK, &empty, &old)
    defer { pthread_sigmask(SIG_SETMASK, &old, nil) }
    return try body()
}
