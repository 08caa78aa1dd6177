import Foundation

/// The repository root, from this file's path.
let repositoryRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<4 { url.deleteLastPathComponent() }  // file, Support, PushBridgeTests, Tests
    return url.path
}()

/// The `pushbridge` executable of this checkout, and how tests start it.
///
/// `swift build --build-tests` builds it beside the tests. `run(configFile:)` starts
/// `pushbridge run -c <file>`; `start(configFile:broker:)` also waits until it has
/// subscribed on the broker; `ManagedProcess.run(PushbridgeBinary.path, [...])` runs a
/// short command (`check`, `try`).
enum PushbridgeBinary {
    /// The binary: the test executable's own folder first (so a build with another
    /// `--build-path`, such as `make sanitize`'s, runs its own binary), then `.build/debug`
    /// and `.build/release` of this checkout.
    static let path: String = {
        let beside = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "")
            .deletingLastPathComponent().appendingPathComponent("pushbridge").path
        let candidates = [beside, repositoryRoot + "/.build/debug/pushbridge",
                          repositoryRoot + "/.build/release/pushbridge"]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[0]
    }()

    /// The path, or an error telling how to build it.
    static func located() throws -> String {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw ProcessError(description: "\(path) is missing: run `swift build --build-tests` first")
        }
        return path
    }

    /// The environment for the child: this process's (sanitizer options included, so the
    /// child's reports go where `make sanitize` collects them) without `PUSHBRIDGE_CONFIG`
    /// and tmux's variables.
    static var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        for name in ["PUSHBRIDGE_CONFIG", "TMUX", "TMUX_PANE"] { env[name] = nil }
        return env
    }

    /// Starts `pushbridge run -c configFile`; returns at once.
    static func run(configFile: String, environment: [String: String] = environment) throws -> ManagedProcess {
        try ManagedProcess(located(), ["run", "-c", configFile], environment: environment)
    }

    /// Writes `yaml` to a temp `bridge.yml` and starts `pushbridge run` on it.
    static func run(yaml: String) throws -> ManagedProcess {
        try run(configFile: try writeTempFile(yaml))
    }

    /// Starts `pushbridge run -c configFile` and waits until it has subscribed: its log
    /// says it connected, and `broker` has installed `subscriptions` new subscriptions
    /// for the client that connected (see `TestBroker.subscriptions`). Throws, with the
    /// bridge's stderr, when it exits or `timeout` passes first.
    static func start(configFile: String, broker: TestBroker, subscriptions: Int = 1,
                      timeout: Duration = .seconds(30)) async throws -> ManagedProcess {
        let before = broker.subscriptions().count
        let p = try run(configFile: configFile)
        do {
            try await p.waitUntilSubscribed(on: broker, subscriptions: subscriptions, after: before, timeout: timeout)
        } catch {
            p.send(SIGKILL)
            throw ProcessError(description: "\(error); bridge stderr: \(p.stderr.suffix(800))")
        }
        return p
    }
}

extension ManagedProcess {
    /// Waits until this `pushbridge run` has logged `connected to … as '<id>'` and `broker`
    /// has installed `subscriptions` subscriptions for such an `<id>` among those it logged
    /// after the first `after` (the broker logs a subscription once it is in place, just
    /// before the SUBACK). Throws when the process exits first.
    func waitUntilSubscribed(on broker: TestBroker, subscriptions: Int = 1, after: Int,
                             timeout: Duration = .seconds(30)) async throws {
        try await errorLines.waitFor(line: "connected to ", timeout: timeout)
        try await eventually("\(subscriptions) subscription(s) of the bridge in the broker's log", timeout: timeout) {
            if !isRunning { throw ProcessError(description: "the bridge exited") }
            let ids = Set(errorLines.lines(containing: "connected to ").compactMap {
                $0.split(separator: "'", omittingEmptySubsequences: false).dropFirst().first.map(String.init)
            })
            return broker.subscriptions().dropFirst(after).filter { ids.contains($0.clientID) }.count >= subscriptions
        }
    }
}
