import Foundation
import Synchronization

/// One running child of `extension.command`: its pid, its stdin (written on a serial queue,
/// so no caller blocks on a full pipe), one thread per output pipe doing blocking reads and
/// one waiting for the exit.
///
/// Started with `Spawn` (`posix_spawn`), not Foundation's `Process`, whose `run()` crashes
/// now and then on Swift 6.3.1 (see `Spawn`).
final class ChildConnection: Sendable {
    let pid: pid_t
    let generation: UInt64
    let startedAt = ContinuousClock.now
    /// This side's ends of the child's three pipes.
    private let stdin: Int32, stdout: Int32, stderr: Int32
    private let writeQueue = DispatchQueue(label: "pushbridge.extension.stdin")
    /// Whether stdin is still open (touched on `writeQueue` and in `deinit`).
    private let inputOpen = Mutex(true)
    /// Whether `read` started the reading threads, which then own stdout and stderr.
    private let reading = Mutex(false)
    /// The wait status once the child is reaped. It is reaped with this lock held and
    /// signalled only while it is `nil`, so a signal never reaches a pid that was reused.
    private let reaped = Mutex<Int32?>(nil)
    /// Waiting for the exit and for stdout's end, then `read`'s `exited` (once).
    private let exit = Mutex<(waiting: Int, exited: (@Sendable (String) -> Void)?)>((2, nil))
    /// How long after the exit stdout's end is waited for: a process the child started may
    /// hold its stdout open for ever, and the bridge must not wait for that to restart.
    static let stdoutGrace: Duration = .seconds(2)

    private init(pid: pid_t, generation: UInt64, stdin: Int32, stdout: Int32, stderr: Int32) {
        (self.pid, self.generation, self.stdin, self.stdout, self.stderr) = (pid, generation, stdin, stdout, stderr)
    }

    deinit {
        inputOpen.withLock { open in if open { close(stdin) } }
        if !reading.withLock({ $0 }) {
            close(stdout)
            close(stderr)
        }
    }

    /// Starts `command` (through `/usr/bin/env` unless its program is a path); throws when it cannot be started.
    static func spawn(_ command: [String], generation: UInt64) throws -> ChildConnection {
        let isPath = command.first?.contains("/") == true
        var opened: [Int32] = []
        do {
            let input = try Spawn.pipe()
            opened += [input.read, input.write]
            let output = try Spawn.pipe()
            opened += [output.read, output.write]
            let errors = try Spawn.pipe()
            opened += [errors.read, errors.write]
            let pid = try Spawn.start(isPath ? command[0] : "/usr/bin/env", isPath ? Array(command.dropFirst()) : command,
                                      stdin: input.read, stdout: output.write, stderr: errors.write)
            for fd in [input.read, output.write, errors.write] { close(fd) }
            let child = ChildConnection(pid: pid, generation: generation,
                                        stdin: input.write, stdout: output.read, stderr: errors.read)
            Worker.run(name: "child wait") { child.waitForExit() }
            return child
        } catch {
            for fd in opened { close(fd) }
            throw error
        }
    }

    /// Starts the reading threads: `line` gets each stdout line, `log` each stderr line;
    /// `exited` runs once with how the child ended, when its stdout has ended and it has exited.
    func read(line: @escaping @Sendable (String) -> Void, log: @escaping @Sendable (String) -> Void,
              exited: @escaping @Sendable (String) -> Void) {
        guard !reading.withLock({ started in defer { started = true }; return started }) else { return }
        exit.withLock { $0.exited = exited }
        Self.thread("stdout", stdout, line) { [self] in
            stop()   // a child that closed its stdout is done
            ended()
        }
        Self.thread("stderr", stderr, log) {}
    }

    /// `true` until the child has exited and been reaped.
    var isRunning: Bool { reaped.withLock { $0 == nil } }

    /// Blocks until the child exits (leaving it a zombie, so its pid stays taken), then
    /// reaps it under `reaped`'s lock: one of the two ends, and stdout's end is waited for no
    /// longer than `stdoutGrace`.
    private func waitForExit() {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
        reaped.withLock { status in
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
            status = raw
        }
        ended()
        DueTimer.after(Self.stdoutGrace) { [self] in
            ended(force: true)
        }
    }

    /// One of the two ends `exited` waits for (the count reaches zero only after `read`);
    /// `force` ends the wait for stdout once the process has exited.
    private func ended(force: Bool = false) {
        guard let (exited, forced) = exit.withLock({ e -> ((@Sendable (String) -> Void), Bool)? in
            if force {
                guard e.waiting == 1, let exited = e.exited else { return nil }
                e.waiting = 0
                return (exited, true)
            }
            e.waiting -= 1
            return e.waiting == 0 ? e.exited.map { ($0, false) } : nil
        }) else { return }
        let how = Spawn.describe(status: reaped.withLock { $0 } ?? 0)
        exited(forced ? how + "; its stdout is still open, held by a process it started" : how)
    }

    /// Writes `line` and a newline; errors (a dead child) are ignored: its exit fails the requests.
    func write(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        writeQueue.async { [self] in
            inputOpen.withLock { open in
                guard open else { return }
                bytes.withUnsafeBytes { raw in
                    var offset = 0
                    while offset < raw.count {
                        let n = Foundation.write(stdin, raw.baseAddress! + offset, raw.count - offset)
                        if n < 0, errno == EINTR { continue }
                        guard n > 0 else { return }
                        offset += n
                    }
                }
            }
        }
    }

    /// Closes stdin (after the pending writes) and sends SIGTERM.
    func stop() {
        writeQueue.async { [self] in
            inputOpen.withLock { open in
                if open { close(stdin) }
                open = false
            }
        }
        reaped.withLock { status in if status == nil { kill(pid, SIGTERM) } }
    }

    private static func thread(_ name: String, _ fd: Int32, _ line: @escaping @Sendable (String) -> Void,
                               then: @escaping @Sendable () -> Void) {
        Worker.run(name: "child \(name)") {
            LineReader.read(fd: fd, line: line)
            close(fd)
            then()
        }
    }
}

/// Reads newline-delimited text from a file descriptor until end of file.
enum LineReader {
    /// Calls `line` for each line (without the newline, a trailing CR dropped; invalid UTF-8 replaced).
    static func read(fd: Int32, line: (String) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 65_536), pending: [UInt8] = []
        while true {
            let n = buffer.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress!, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { break }
            pending.append(contentsOf: buffer[..<n])
            var start = 0
            while let end = pending[start...].firstIndex(of: 0x0A) {
                emit(pending[start..<end], line)
                start = end + 1
            }
            pending.removeFirst(start)
        }
        if !pending.isEmpty { emit(pending[...], line) }
    }

    private static func emit(_ bytes: ArraySlice<UInt8>, _ line: (String) -> Void) {
        line(String(decoding: bytes.last == 0x0D ? bytes.dropLast() : bytes, as: UTF8.self))
    }
}
