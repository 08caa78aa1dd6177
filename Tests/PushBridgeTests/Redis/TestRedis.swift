import Foundation
import Synchronization

/// A private redis-server (Debian's, 7.0) for one test: its own loopback port, unix socket and
/// directory, optionally a password and an append-only file. `deinit` kills it (by its PID) and
/// removes the directory; `stop()` and `start()` keep the port and the data.
final class TestRedis: Sendable {
    let directory: String
    let port: Int
    let password: String?
    private let process = Mutex<ChildProcess?>(nil)

    /// The unix socket it also listens on.
    var socket: String { directory + "/redis.sock" }
    var configFile: String { directory + "/redis.conf" }
    var logFile: String { directory + "/redis.log" }

    /// Writes the config and starts the server; waits until it accepts connections.
    init(password: String? = nil, appendOnly: Bool = false) throws {
        self.password = password
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushbridge-redis-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var attempt = 0
        while true {
            attempt += 1
            let p = try LoopbackPorts.free()
            let lines = [
                "bind 127.0.0.1", "port \(p)", "unixsocket \(directory)/redis.sock", "unixsocketperm 700",
                "dir \(directory)", "save \"\"", "appendonly \(appendOnly ? "yes" : "no")", "daemonize no",
                "logfile \(directory)/redis.log", "protected-mode yes",
            ] + (password.map { ["requirepass \($0)"] } ?? [])
            try (lines.joined(separator: "\n") + "\n").write(toFile: directory + "/redis.conf", atomically: true, encoding: .utf8)
            do {
                let started = try Self.launch(configFile: directory + "/redis.conf", logFile: directory + "/redis.log", port: p)
                port = p
                process.withLock { $0 = started }
                return
            } catch where attempt < 5 {
                continue
            }
        }
    }

    deinit {
        stop(signal: SIGKILL)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Starts it again (same port, same data).
    func start() throws {
        guard process.withLock({ $0 == nil }) else { return }
        let started = try Self.launch(configFile: configFile, logFile: logFile, port: port)
        process.withLock { $0 = started }
    }

    /// SIGTERM and wait (Redis writes its append-only file on the way out).
    func stop() { stop(signal: SIGTERM) }

    private func stop(signal: Int32) {
        let p = process.withLock { p -> ChildProcess? in defer { p = nil }; return p }
        p?.stop(signal: signal)
    }

    /// Starts redis-server and waits until it says it is ready: it accepts connections while it
    /// still loads its append-only file (answering -LOADING), so the port alone is not enough.
    private static func launch(configFile: String, logFile: String, port: Int) throws -> ChildProcess {
        let ready = "Ready to accept connections"
        let readyBefore = ((try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "").components(separatedBy: ready).count
        let p = try ChildProcess("/usr/bin/redis-server", [configFile])
        let deadline = ContinuousClock.now + .seconds(30)
        while !LoopbackPorts.isAccepting(port)
                || ((try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "").components(separatedBy: ready).count <= readyBefore {
            if !p.isRunning || ContinuousClock.now > deadline {
                p.signal(SIGKILL)
                _ = p.waitSync(timeout: .seconds(5))
                let text = (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""
                throw ProcessError(description: "redis-server did not start on \(port): \(text.suffix(600))")
            }
            usleep(10_000)
        }
        return p
    }
}
