import Foundation
import Synchronization
@testable import PushBridge

/// A `Bridge` running in this process, its log collected: the one in-process harness.
///
/// ```swift
/// let bridge = try InProcessBridge.start(yaml: text)     // loads, builds, runs
/// try await bridge.waitUntilSubscribed(on: broker)       // its SUBSCRIBE is in place
/// try await bridge.log.waitFor(line: "sweep done")       // a line logged
/// try await bridge.stop()                                // drains; run() has returned
/// ```
/// A test that fails before `stop()` still ends the bridge: `deinit` asks it to stop (it
/// drains in the background). Every test builds its `Bridge` with `make(config:logger:)`.
final class InProcessBridge: Sendable {
    /// The bridge under test.
    let bridge: Bridge
    /// Its log lines, from the logger given to `Bridge`.
    let log: LogCollector
    private let task: Task<Void, any Error>

    private init(bridge: Bridge, log: LogCollector) {
        self.bridge = bridge
        self.log = log
        task = Task { try await bridge.run() }
    }

    /// Loads `yaml` with the real loader (no environment), then starts a bridge on it with a
    /// logger at `level` (`debug`: every line). Throws on a configuration error.
    static func start(yaml: String, level: LogLevel = .debug,
                      serviceExtension: ExtensionFactory? = nil) throws -> InProcessBridge {
        let config: BridgeConfig
        switch ConfigLoader.load(text: yaml, path: "bridge.yml", environment: [:]) {
        case .success(let c):
            config = c
            ConfigCollector.record(yaml, valid: true, name: "inprocess")
        case .failure(let errors): throw ProcessError(description: "bad test config: \(errors)")
        }
        return try start(config: config, level: level, serviceExtension: serviceExtension)
    }

    /// Starts a bridge on a loaded `config`.
    static func start(config: BridgeConfig, level: LogLevel = .debug,
                      serviceExtension: ExtensionFactory? = nil) throws -> InProcessBridge {
        let log = LogCollector()
        let bridge = try make(config: config, logger: log.logger(level: level), serviceExtension: serviceExtension)
        return InProcessBridge(bridge: bridge, log: log)
    }

    /// Starts a bridge whose stage and conditions read `clock`, with the conditions' timer
    /// never armed: the test moves the clock and calls `fireConditions()`.
    static func start(yaml: String, clock: StageClock, level: LogLevel = .debug) throws -> InProcessBridge {
        let config: BridgeConfig
        switch ConfigLoader.load(text: yaml, path: "bridge.yml", environment: [:]) {
        case .success(let c): config = c
        case .failure(let errors): throw ProcessError(description: "bad test config: \(errors)")
        }
        return try start(config: config, clock: clock, level: level)
    }

    /// `start(yaml:clock:level:)` for a loaded `config` (a recipe's file with its environment).
    static func start(config: BridgeConfig, clock: StageClock, level: LogLevel = .debug) throws -> InProcessBridge {
        let log = LogCollector()
        let bridge = try Bridge(config: config, logger: log.logger(level: level), serviceExtension: nil, clock: clock,
                                automaticConditionTimer: false)
        return InProcessBridge(bridge: bridge, log: log)
    }

    /// Runs the conditions' due repeats and steps at the clock's time, then the outputs'
    /// due fallbacks and budget summaries.
    func fireConditions() {
        bridge.flow.fireConditions()
        bridge.outputs?.tick()
    }

    /// Sends the digests' summaries due at the clock's time.
    func fireDigests() { bridge.flow.fireDigests() }

    /// The one place tests build a `Bridge` (running or not): a change to `Bridge.init` is
    /// one edit here. Declared `throws` for an initializer that may throw.
    static func make(config: BridgeConfig, logger: BridgeLogger, serviceExtension: ExtensionFactory? = nil) throws -> Bridge {
        try Bridge(config: config, logger: logger, serviceExtension: serviceExtension)
    }

    /// A test that fails before `stop()` still ends the bridge (it drains in the background).
    deinit { bridge.requestStop() }

    /// Waits until `broker` has installed the bridge's subscriptions (`count` filters, one
    /// per route unless routes share one) since it started: the SUBACK follows at once.
    func waitUntilSubscribed(on broker: TestBroker, count: Int? = nil, timeout: Duration = .seconds(30)) async throws {
        let id = bridge.config.broker.clientID
        let wanted = count ?? Set(bridge.config.routes.map(\.topic)).count
        try await eventually("\(wanted) subscription(s) of '\(id)' in the broker's log; bridge log: \(log.lines.suffix(5))",
                             timeout: timeout) {
            broker.subscriptions().filter { $0.clientID == id }.count >= wanted
        }
    }

    /// Asks the bridge to drain and stop, and waits until `run()` has returned; rethrows its error.
    func stop() async throws {
        bridge.requestStop()
        try await task.value
    }

    /// Cancels the task running `run()` (which must then drain and return like `stop()`).
    func cancel() { task.cancel() }

    /// Waits until `run()` has returned (after `stop()`, `cancel()` or a failure); rethrows its error.
    func finished() async throws { try await task.value }
}
