import Foundation
import Testing
@testable import PushBridge

/// `pushbridge monitor` against a running `pushbridge run` (both the built binary):
/// `--once --json`, `--once`, and the live view inside tmux.
@Suite("Monitoring integration: pushbridge monitor")
struct MonitorCommandTests {
    /// A bridge binary running on a fresh broker, with messages already counted.
    /// Released without `stop()` (a failed test), it kills the bridge.
    final class Running: Sendable {
        let broker: TestBroker
        let config: String
        let prefix: String
        let bridge: ManagedProcess
        let watcher: StatsWatcher

        /// Starts the bridge, sends 3 deliverable and 1 suppressed message on `<prefix>/door/front`
        /// and 2 background ones on `<prefix>/sensor/kitchen`, and waits until the stats show them.
        static func start() async throws -> Running {
            let broker = try TestBroker()
                let p = uniqueName("mt")
            let http = try LoopbackPorts.free()
            let config = try writeTempFile(brokerSection(broker, clientID: uniqueName("bridge")) + """

                entitlements: [com.apple.developer.usernotifications.filtering]
                routes:
                  - {name: door, topic: "\(p)/door/#", alert: {title: Door, body: "{{ payload.who }}"}}
                  - {name: sensor, topic: "\(p)/sensor/#", push_type: background}
                extension:
                  filters:
                    - {name: drop-tests, suppress: "payload.test == true"}
                display:
                  topic: "display/{{ topic }}"
                monitoring:
                  interval: 200ms
                  http: "127.0.0.1:\(http)"
                """)
            let watcher = try await StatsWatcher.start(broker)
            let bridge = try PushbridgeBinary.run(configFile: config)
            do {
                try await waitUntilReady(port: http, timeout: .seconds(30))
            } catch {
                bridge.send(SIGKILL)
                throw ProcessError(description: "\(error); bridge stderr: \(bridge.stderr)")
            }
            let sender = try await TestClient.connected(to: broker)
            for who in ["Alice", "Bob", "Carol"] { try sender.publish("\(p)/door/front", "{\"who\":\"\(who)\"}") }
            try sender.publish("\(p)/door/front", #"{"who":"Test","test":true}"#)
            for _ in 0..<2 { try sender.publish("\(p)/sensor/kitchen", #"{"t":20}"#) }
            try await watcher.waitFor("6 finished") { count($0, "totals", "received") == 6 && count($0, "in_flight") == 0 }
            return Running(broker: broker, config: config, prefix: p, bridge: bridge, watcher: watcher)
        }

        private init(broker: TestBroker, config: String, prefix: String, bridge: ManagedProcess,
                     watcher: StatsWatcher) {
            (self.broker, self.config, self.prefix, self.bridge, self.watcher)
                = (broker, config, prefix, bridge, watcher)
        }

        deinit { bridge.send(SIGKILL) }

        /// SIGTERM to the bridge; expects a clean exit and a last retained snapshot that
        /// says `connected: false` (it outlives the bridge).
        func stop() async {
            let result = await bridge.terminate(grace: .seconds(10))
            #expect(result.status == 0 && result.exitedNormally, "bridge exit: \(result.status) \(result.stderr)")
            await #expect(throws: Never.self) {
                try await watcher.waitFor("the final snapshot", timeout: .seconds(10)) {
                    $0["connected"] == .bool(false) && count($0, "totals", "received") == 6
                }
            }
            watcher.stop()
        }
    }

    @Test("monitor --once --json prints the current snapshot JSON")
    func onceJSON() async throws {
        let running = try await Running.start()
        let result = try await ManagedProcess.run(try PushbridgeBinary.located(),
                                                  ["monitor", "--once", "--json", "-c", running.config],
                                                  environment: PushbridgeBinary.environment, timeout: .seconds(30))
        await running.stop()
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let snapshot = try decodeJSON(Array(result.stdout.utf8))
        #expect(snapshot["version"]?.stringValue == Bridge.version)
        #expect(snapshot["connected"] == .bool(true))
        #expect(count(snapshot, "totals", "received") == 6)
        #expect(count(snapshot, "totals", "delivered") == 3)
        #expect(count(snapshot, "totals", "suppressed") == 1)
        #expect(count(snapshot, "totals", "not_displayed") == 2)
        #expect(count(snapshot, "topics", "\(running.prefix)/door/front", "delivered") == 3)
        #expect(count(snapshot, "filters", "drop-tests", "suppressed") == 1)
        #expect(invariantViolations(snapshot).isEmpty)
    }

    @Test("monitor --once prints the table with a row per topic")
    func onceTable() async throws {
        let running = try await Running.start()
        var env = PushbridgeBinary.environment
        env["COLUMNS"] = "160"
        let result = try await ManagedProcess.run(try PushbridgeBinary.located(), ["monitor", "--once", "-c", running.config],
                                                  environment: env, timeout: .seconds(30))
        await running.stop()
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        try #require(lines.count == 4, "output:\n\(result.stdout)")
        #expect(lines[0].hasPrefix("pushbridge \(Bridge.version)  connected  up "))
        #expect(lines[0].contains("in flight 0  received 6  delivered 3  suppressed 1  rejected 0"))
        #expect(lines[1].split(separator: " ") == ["TOPIC", "RECEIVED", "DELIVERED", "SUPPRESSED", "REJECTED", "RATE/S", "LAST", "SEEN"])
        // Most received first.
        #expect(Self.cells(lines[2]).prefix(5) == ["\(running.prefix)/door/front", "4", "3", "1", "0"])
        #expect(Self.cells(lines[3]).prefix(5) == ["\(running.prefix)/sensor/kitchen", "2", "0", "0", "0"])
    }

    @Test("the live monitor redraws inside tmux and exits on Ctrl-C",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")))
    func liveInTmux() async throws {
        let running = try await Running.start()
        let socket = uniqueName("pbmon")
        let tmux = Tmux(socket: socket)
        defer { tmux.killServer() }
        let command = "\(try PushbridgeBinary.located()) monitor -c \(running.config)"
        try tmux.run(["new-session", "-d", "-s", "mon", "-x", "120", "-y", "30", command])

        let front = "\(running.prefix)/door/front"
        var screen = ""
        do {
            try await eventually("a frame with the topic rows", timeout: .seconds(20)) {
                screen = tmux.capture()
                return screen.contains("pushbridge \(Bridge.version)  connected") && screen.contains(front)
                    && screen.contains("\(running.prefix)/sensor/kitchen")
            }
        } catch {
            Issue.record("screen:\n\(screen)")
            throw error
        }
        let lines = screen.split(separator: "\n").map(String.init)
        #expect(lines.first?.contains("received 6  delivered 3  suppressed 1  rejected 0") == true, "screen:\n\(screen)")
        #expect(lines.contains { $0.hasPrefix("TOPIC") && $0.contains("RECEIVED") && $0.contains("LAST SEEN") })
        let row = lines.first { $0.hasPrefix(front) }.map(Self.cells) ?? []
        #expect(row.prefix(5) == [front, "4", "3", "1", "0"], "screen:\n\(screen)")
        #expect(lines.allSatisfy { $0.count <= 120 })

        try tmux.run(["send-keys", "-t", "mon", "C-c"])
        try await eventually("the monitor exited (session gone)", timeout: .seconds(10)) { !tmux.hasSession("mon") }
        await running.stop()
    }

    /// A table row's cells (the topic has no spaces in these tests).
    static func cells(_ line: String) -> [String] { line.split(separator: " ").map(String.init) }
}

/// A private tmux server (`tmux -L socket`), so tests never touch the user's sessions.
///
/// tmux is started with `Spawn` (`posix_spawn`), every descriptor above 2 closed: the server it
/// forks would otherwise inherit this process's pipes, other tests' children's output among
/// them, and a wait for their end would never end.
struct Tmux {
    let socket: String

    /// Runs `tmux -L socket args…`; throws when it fails.
    func run(_ args: [String]) throws {
        let r = try Self.spawn(["-L", socket] + args)
        guard r.status == 0 else { throw ProcessError(description: "tmux \(args): \(r.status) \(r.output)") }
    }

    /// The pane's visible text, or "" when there is none.
    func capture() -> String {
        guard let r = try? Self.spawn(["-L", socket, "capture-pane", "-p", "-t", "mon"]), r.status == 0 else { return "" }
        return r.output
    }

    /// `true` while session `name` exists.
    func hasSession(_ name: String) -> Bool {
        (try? Self.spawn(["-L", socket, "has-session", "-t", name]))?.status == 0
    }

    /// Kills this socket's server (ignores "no server running").
    func killServer() {
        _ = try? Self.spawn(["-L", socket, "kill-server"])
    }

    /// Runs tmux to its end with stdin from /dev/null and stdout and stderr in a temp file.
    private static func spawn(_ args: [String]) throws -> (status: Int32, output: String) {
        let outFile = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-\(UUID().uuidString)").path
        defer { unlink(outFile) }
        let fd = open(outFile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ProcessError(description: "open \(outFile): \(String(cString: strerror(errno)))") }
        // `Spawn`: no signal blocked in the child (this thread, a libdispatch worker, blocks
        // them all), nothing inherited but 0, 1 and 2.
        let started = Result { try Spawn.start("/usr/bin/tmux", args, environment: PushbridgeBinary.environment,
                                               stdout: fd, stderr: fd) }
        close(fd)
        let pid = try started.mapError { ProcessError(description: "tmux: \($0)") }.get()
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let output = (try? String(contentsOfFile: outFile, encoding: .utf8)) ?? ""
        let exited = status & 0x7F == 0
        return (exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F), output)
    }
}
