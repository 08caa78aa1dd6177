import Foundation
import Synchronization

/// A child process started with `posix_spawn`, with every signal unblocked and at its default.
///
/// Foundation's `Process` passes on the spawning thread's signal mask, and test threads
/// block SIGTERM: a mosquitto (or pushbridge) started that way never sees SIGTERM. This
/// spawns with an empty mask and default dispositions, so `signal(SIGTERM)` works.
final class ChildProcess: Sendable {
    let pid: pid_t
    /// The wait status once reaped.
    private let reaped = Mutex<Int32?>(nil)

    /// Starts `path` with `arguments`; `stdin`/`stdout`/`stderr` are descriptors given to the
    /// child as 0/1/2 (`nil` = /dev/null).
    init(_ path: String, _ arguments: [String], environment: [String: String]? = nil,
         currentDirectory: String? = nil, stdin: Int32? = nil, stdout: Int32? = nil, stderr: Int32? = nil) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (fd, target) in [(stdin, Int32(0)), (stdout, 1), (stderr, 2)] {
            if let fd {
                posix_spawn_file_actions_adddup2(&actions, fd, target)
            } else {
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            }
        }
        // Nothing else inherited: a pipe another test made (Foundation's are not close-on-exec)
        // would stay open in a long-lived server and hold that test's child's stdout open.
        try Self.closeInherited(&actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        // No portable chdir file action in Swift's Glibc: `env --chdir` does it.
        let (path, arguments) = currentDirectory.map { ("/usr/bin/env", ["--chdir=\($0)", path] + arguments) }
            ?? (path, arguments)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let env = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { env?.forEach { free($0) } }
        var child: pid_t = 0
        let rc = env.map { e in posix_spawn(&child, path, &actions, &attributes, argv, e) }
            ?? posix_spawn(&child, path, &actions, &attributes, argv, environ)
        guard rc == 0 else {
            throw ProcessError(description: "cannot start \(path): \(String(cString: strerror(rc)))")
        }
        pid = child
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+; Swift's Glibc module does not export it).
    private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map { unsafeBitCast($0, to: (@convention(c) (
            UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self) }
    }()

    /// Adds the file action that closes every descriptor from 3 up in the child.
    static func closeInherited(_ actions: inout posix_spawn_file_actions_t) throws {
        guard let closeFrom = addCloseFrom, closeFrom(&actions, 3) == 0 else {
            throw ProcessError(description: "posix_spawn_file_actions_addclosefrom_np is unavailable (glibc < 2.34?)")
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
