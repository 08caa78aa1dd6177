import Foundation

/// Starts child processes with `posix_spawn`: every signal unblocked and at its default in
/// the child, and no descriptor but 0, 1 and 2 inherited.
///
/// The bridge does not use Foundation's `Process`: on Swift 6.3.1 its `run()` reads past the
/// end of a directory entry while it counts the open descriptors
/// (swift-corelibs-foundation #5472) and crashes now and then. It would also pass on the
/// spawning thread's signal mask, and the bridge's threads block SIGTERM.
enum Spawn {
    /// The process could not be started.
    package struct Failure: Error, CustomStringConvertible {
        /// What failed and why, e.g. "cannot start /nope: No such file or directory".
        package var description: String
    }

    /// Starts `path` with `arguments` (`argv[0]` is `path`) and returns its pid. `stdin`,
    /// `stdout` and `stderr` are descriptors the child gets as 0, 1 and 2 (`nil`: /dev/null);
    /// `environment` `nil` passes on this process's own.
    package static func start(_ path: String, _ arguments: [String], environment: [String: String]? = nil,
                              stdin: Int32? = nil, stdout: Int32? = nil, stderr: Int32? = nil) throws(Failure) -> pid_t {
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
        try closeInherited(&actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let env = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { env?.forEach { free($0) } }
        var child: pid_t = 0
        let rc = env.map { e in posix_spawn(&child, path, &actions, &attributes, argv, e) }
            ?? posix_spawn(&child, path, &actions, &attributes, argv, environ)
        guard rc == 0 else { throw Failure(description: "cannot start \(path): \(String(cString: strerror(rc)))") }
        return child
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 on; Swift's Glibc module does not export it).
    private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map { unsafeBitCast($0, to: (@convention(c) (
            UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self) }
    }()

    /// Adds the file action that closes every descriptor from 3 up in the child.
    static func closeInherited(_ actions: inout posix_spawn_file_actions_t) throws(Failure) {
        guard let closeFrom = addCloseFrom, closeFrom(&actions, 3) == 0 else {
            throw Failure(description: "posix_spawn_file_actions_addclosefrom_np is unavailable (glibc older than 2.34)")
        }
    }

    /// A pipe whose two ends close on exec (a child gets its copy through a dup2 file action):
    /// `(read, write)`.
    static func pipe() throws(Failure) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        // Swift's Glibc has no `pipe2`; `Spawn.start` closes every other descriptor in its
        // children anyway, so the moment between `pipe` and `fcntl` leaks nothing to them.
        guard Glibc.pipe(&fds) == 0 else {
            throw Failure(description: "pipe: \(String(cString: strerror(errno)))")
        }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (fds[0], fds[1])
    }

    /// How a wait status reads in a log: "status N" for an exit, "signal N" for a kill.
    package static func describe(status: Int32) -> String {
        let signal = status & 0x7F
        return signal == 0 ? "status \((status >> 8) & 0xFF)" : "signal \(signal)"
    }
}
