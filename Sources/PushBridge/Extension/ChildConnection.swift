import Foundation
import Synchronization

/// One running child of `extension.command`: its process, its stdin (written on a serial
/// queue, so no caller blocks on a full pipe) and one thread per output pipe doing blocking reads.
///
/// `@unchecked Sendable`: `Process` is not `Sendable`; once started this class only reads its
/// `processIdentifier`, `isRunning` and exit status and calls `terminate()`, which Foundation
/// guards internally; `stdin` and `inputOpen` are touched only on `writeQueue`.
final class ChildConnection: @unchecked Sendable {
    let process = Process()
    let generation: UInt64
    let startedAt = ContinuousClock.now
    private let stdin = Foundation.Pipe(), stdout = Foundation.Pipe(), stderr = Foundation.Pipe()
    private let writeQueue = DispatchQueue(label: "pushbridge.extension.stdin")
    private var inputOpen = true
    /// Waiting for the exit and for stdout's end, then `read`'s `exited` (once).
    private let exit = Mutex<(waiting: Int, exited: (@Sendable (String) -> Void)?)>((2, nil))
    /// How long after the exit stdout's end is waited for: a process the child started may
    /// hold its stdout open for ever, and the bridge must not wait for that to restart.
    static let stdoutGrace: Duration = .seconds(2)

    private init(generation: UInt64) { self.generation = generation }

    /// Starts `command` (through `/usr/bin/env` unless its program is a path); throws when it cannot be started.
    static func spawn(_ command: [String], generation: UInt64) throws -> ChildConnection {
        let child = ChildConnection(generation: generation)
        let process = child.process
        let isPath = command.first?.contains("/") == true
        process.executableURL = URL(fileURLWithPath: isPath ? command[0] : "/usr/bin/env")
        process.arguments = isPath ? Array(command.dropFirst()) : command
        (process.standardInput, process.standardOutput, process.standardError) = (child.stdin, child.stdout, child.stderr)
        process.terminationHandler = { _ in child.terminated() }
        do { try process.run() } catch {
            process.terminationHandler = nil   // it holds the child
            throw error
        }
        return child
    }

    /// Starts the reading threads: `line` gets each stdout line, `log` each stderr line;
    /// `exited` runs once with how the child ended, when its stdout has ended and it has exited.
    func read(line: @escaping @Sendable (String) -> Void, log: @escaping @Sendable (String) -> Void,
              exited: @escaping @Sendable (String) -> Void) {
        exit.withLock { $0.exited = exited }
        Self.thread("stdout", stdout.fileHandleForReading, line) { [self] in
            stop()   // a child that closed its stdout is done
            ended()
        }
        Self.thread("stderr", stderr.fileHandleForReading, log) {}
    }

    /// The process has exited: one of the two ends, and stdout's end is waited for no longer
    /// than `stdoutGrace`.
    private func terminated() {
        ended()
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.stdoutGrace.dispatchInterval) { [self] in
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
        process.terminationHandler = nil   // it held this child
        let status = process.terminationStatus
        let how = process.terminationReason == .uncaughtSignal ? "signal \(status)" : "status \(status)"
        exited(forced ? how + "; its stdout is still open, held by a process it started" : how)
    }

    /// Writes `line` and a newline; errors (a dead child) are ignored: its exit fails the requests.
    func write(_ line: String) {
        let bytes = Data((line + "\n").utf8)
        writeQueue.async { [self] in
            if inputOpen { try? stdin.fileHandleForWriting.write(contentsOf: bytes) }
        }
    }

    /// Closes stdin (after the pending writes) and sends SIGTERM.
    func stop() {
        writeQueue.async { [self] in
            if inputOpen { try? stdin.fileHandleForWriting.close() }
            inputOpen = false
        }
        if process.isRunning { process.terminate() }
    }

    private static func thread(_ name: String, _ handle: FileHandle, _ line: @escaping @Sendable (String) -> Void,
                               then: @escaping @Sendable () -> Void) {
        // The job holds the handle: a FileHandle closes its descriptor when freed.
        Worker.run(name: "child \(name)") {
            LineReader.read(fd: handle.fileDescriptor, line: line)
            try? handle.close()
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
