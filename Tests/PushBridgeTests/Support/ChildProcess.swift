import Foundation
@testable import PushBridge
import Synchronization

/// A child process started with `Spawn` (`posix_spawn`), with every signal unblocked and at
/// its default.
///
/// Foundation's `Process` passes on the spawning thread's signal mask, and test threads
/// block SIGTERM: a mosquitto (or pushbridge) started that way never sees SIGTERM. `Spawn`
/// starts with an empty mask and default dispositions, so `signal(SIGTERM)` works.
final class ChildProcess: Sendable {
    let pid: pid_t
    /// The wait status once reaped.
    private let reaped = Mutex<Int32?>(nil)

    /// Starts `path` with `arguments`; `stdin`/`stdout`/`stderr` are descriptors given to the
    /// child as 0/1/2 (`nil` = /dev/null). Nothing else is inherited: a pipe another test made
    /// would stay open in a long-lived server and hold that test's child's stdout open.
    init(_ path: String, _ arguments: [String], environment: [String: String]? = nil,
         currentDirectory: String? = nil, stdin: Int32? = nil, stdout: Int32? = nil, stderr: Int32? = nil) throws {
        // No portable chdir file action in Swift's Glibc: `env --chdir` does it.
        let (path, arguments) = currentDirectory.map { ("/usr/bin/env", ["--chdir=\($0)", path] + arguments) }
            ?? (path, arguments)
        do {
            pid = try Spawn.start(path, arguments, environment: environment, stdin: stdin, stdout: stdout, stderr: stderr)
        } catch {
            throw ProcessError(description: error.description)
        }
    }

    deinit {
        if isRunning {
            kill(pid, SIGKILL)
            _ = waitSync(timeout: .seconds(5))
        }
    }

    /// The raw wait status once the child has ended (reaps it), else `nil`.
    func status() -> Int32? {
        reaped.withLock { saved in
            if let saved { return saved }
            var s: Int32 = 0
            if waitpid(pid, &s, WNOHANG) == pid { saved = s }
            return saved
        }
    }

    /// `true` while the child runs.
    var isRunning: Bool { status() == nil }

    /// Sends `signal` unless the child has ended.
    func signal(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// Waits (blocking, polling every 5 ms) until the child ends; `nil` after `timeout`.
    func waitSync(timeout: Duration) -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let s = status() { return s }
            if ContinuousClock.now >= deadline { return nil }
            usleep(5_000)
        }
    }

    /// Sends `signal` and waits up to `grace` for the child to end; SIGKILL after that (a
    /// server stopped by a test: mosquitto, redis-server).
    func stop(signal: Int32, grace: Duration = .seconds(10)) {
        guard isRunning else { return }
        self.signal(signal)
        if waitSync(timeout: grace) == nil {
            self.signal(SIGKILL)
            _ = waitSync(timeout: .seconds(5))
        }
    }

    /// Waits without blocking a thread; `nil` after `timeout`.
    func wait(timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let s = status() { return s }
            if ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Exit code for a normal exit, else the negated signal number.
    static func exitCode(_ status: Int32) -> Int32 {
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : -signal
    }
}
