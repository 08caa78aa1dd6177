import Foundation
import Synchronization
@testable import PushBridge

/// A temporary directory for one test's bridge.yml and helper scripts; removed on deinit.
final class BridgeDirectory: Sendable {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("pushbridge-montest-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes `text` to `name` inside the directory and returns its path.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let file = path + "/" + name
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }
}

/// The `broker:` section every integration test uses: the test broker, a fast reconnect.
func brokerSection(_ broker: TestBroker, clientID: String) -> String {
    """
    broker:
      host: 127.0.0.1
      port: \(broker.port)
      client_id: \(clientID)
      protocol: 5
      keepalive: 5s
      reconnect: {min: 100ms, max: 500ms}
    """
}

/// A `Bridge` running in this process, with its log lines captured.
///
/// `start(yaml:)` loads the text with `ConfigLoader` (no environment) and runs the bridge
/// in a task; `stop()` asks it to drain and waits for `run()` to return.
final class InProcessBridge: Sendable {
    let bridge: Bridge
    private let task: Task<Void, any Error>
    private let lines: LogLines

    /// Captured log lines (the sink is called from several threads).
    final class LogLines: Sendable {
        let lines = Mutex<[String]>([])
    }

    private init(bridge: Bridge, task: Task<Void, any Error>, lines: LogLines) {
        self.bridge = bridge
        self.task = task
        self.lines = lines
    }

    /// Loads `yaml` and starts the bridge on it; throws on a configuration error.
    static func start(yaml: String, level: LogLevel = .info) throws -> InProcessBridge {
        let config: BridgeConfig
        switch ConfigLoader.load(text: yaml, path: "bridge.yml", environment: [:]) {
        case .success(let c): config = c
        case .failure(let errors): throw ProcessError(description: "bad test config: \(errors)")
        }
        let lines = LogLines()
        let logger = Logger(level: level, format: .text) { line in lines.lines.withLock { $0.append(line) } }
        let bridge = try Bridge(config: config, logger: logger)
        let task = Task { try await bridge.run() }
        return InProcessBridge(bridge: bridge, task: task, lines: lines)
    }

    /// A test that fails before `stop()` still ends the bridge (it drains in the background).
    deinit { bridge.requestStop() }

    /// The log so far, one line per element.
    var log: [String] { lines.lines.withLock { $0 } }

    /// Drains and stops the bridge; returns once `run()` has returned.
    func stop() async {
        bridge.requestStop()
        _ = try? await task.value
    }
}

/// The `pushbridge` executable built next to the tests (`swift build --build-tests`).
enum MonitoredBinary {
    /// The binary (see `pushbridgeBinary` in Support/Binaries.swift).
    static var path: String { pushbridgeBinary }

    /// The path, or an error telling how to build it.
    static func located() throws -> String {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw ProcessError(description: "\(path) is missing: run `swift build --build-tests` first")
        }
        return path
    }

    /// The environment for a child: this process's, without `PUSHBRIDGE_CONFIG` and `TMUX`.
    static var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["PUSHBRIDGE_CONFIG"] = nil
        env["TMUX"] = nil
        env["TMUX_PANE"] = nil
        return env
    }

    /// Starts `pushbridge run -c config` as a child process.
    static func run(config: String) throws -> ManagedProcess {
        try ManagedProcess(located(), ["run", "-c", config], environment: environment)
    }
}

/// Collects every snapshot the bridge publishes on its stats topic.
final class StatsWatcher: Sendable {
    let client: TestClient

    private init(client: TestClient) { self.client = client }

    /// Subscribes to `topic` on `broker` (before the bridge starts, so no snapshot is missed).
    static func start(_ broker: TestBroker, topic: String = "pushbridge/stats") async throws -> StatsWatcher {
        StatsWatcher(client: try await TestClient.connected(
            to: broker, subscriptions: [MQTTSubscription(filter: topic, qos: 1, noLocal: false)]))
    }

    /// Every snapshot so far, decoded with Foundation's JSON decoder (independent of pushbridge).
    func documents() throws -> [JSONValue] {
        try client.messages.map { try decodeJSON($0.payload) }
    }

    /// The newest snapshot.
    func latest() throws -> JSONValue? { try documents().last }

    /// Waits until the newest snapshot satisfies `condition`; returns it.
    @discardableResult
    func waitFor(_ what: String, timeout: Duration = .seconds(20),
                 _ condition: @escaping (JSONValue) -> Bool) async throws -> JSONValue {
        try await eventually("\(what); last snapshot: \((try? latest())?.jsonText ?? "none")", timeout: timeout) {
            guard let last = try latest() else { return false }
            return condition(last)
        }
        return try latest()!
    }

    func stop() { client.stop(flushTimeout: .zero) }
}

/// The integer at `path` (object keys) inside `value`, 0 when absent (zeros may be left out).
func count(_ value: JSONValue?, _ path: String...) -> Int {
    var v = value
    for key in path { v = v?[key] }
    switch v {
    case .int(let i)?: return Int(i)
    case .double(let d)? where d == d.rounded(): return Int(d)
    default: return 0
    }
}

/// The outcome names of SPEC section 7 whose sum, with `in_flight`, equals `received`.
let outcomeNames = ["delivered", "suppressed", "not_displayed", "rejected", "expired", "unrouted"]

/// Problems with the invariant `received == Σ outcomes + in_flight` in one snapshot:
/// for the totals (with the top-level `in_flight`), every topic and every route.
func invariantViolations(_ snapshot: JSONValue) -> [String] {
    var problems: [String] = []
    func check(_ name: String, _ counters: JSONValue?, inFlight: Int) {
        let received = count(counters, "received")
        let sum = outcomeNames.reduce(0) { $0 + count(counters, $1) }
        if received != sum + inFlight {
            problems.append("\(name): received \(received) != outcomes \(sum) + in_flight \(inFlight)")
        }
    }
    check("totals", snapshot["totals"], inFlight: count(snapshot, "in_flight"))
    for section in ["topics", "routes"] {
        if case .object(let members)? = snapshot[section] {
            for (name, counters) in members { check("\(section).\(name)", counters, inFlight: count(counters, "in_flight")) }
        }
    }
    return problems
}

/// One HTTP/1.0 GET to 127.0.0.1:`port`, answered in full: status code and body.
func httpGet(port: Int, path: String) throws -> (status: Int, body: String) {
    let reply = try rawHTTP("GET", path, port: port)
    return (reply.status, reply.body)
}

/// Waits until `/readyz` on 127.0.0.1:`port` answers 200 (connected and subscribed).
func waitUntilReady(port: Int, timeout: Duration = .seconds(20)) async throws {
    try await eventually("/readyz 200 on port \(port)", timeout: timeout) {
        (try? httpGet(port: port, path: "/readyz"))?.status == 200
    }
}
