import Foundation
import Synchronization

/// What a finished child process left behind.
struct ProcessResult: Sendable {
    /// Exit status, or the signal number for a process killed by a signal.
    var status: Int32
    /// `true` when the process ended normally (not by a signal).
    var exitedNormally: Bool
    var stdout: String
    var stderr: String
    /// The process outlived its timeout and was killed.
    var timedOut: Bool
}

/// The process did not start, or a wait ran out of time.
struct ProcessError: Error, CustomStringConvertible {
    var description: String
}

/// A child process with its standard output and error captured as it runs.
///
/// Used by tests to run `pushbridge`, `mosquitto_pub` and friends:
/// `let r = try await ManagedProcess.run("/usr/bin/mosquitto_pub", ["-p", "1883", …])`.
/// Built on `ChildProcess`, so SIGTERM reaches the child.
final class ManagedProcess: Sendable {
    private let child: ChildProcess
    private let output = Mutex<(out: [UInt8], err: [UInt8])>(([], []))
    private let readersDone = DispatchGroup()
    /// Standard error, line by line as it arrives: `try await p.errorLines.waitFor(line: "connected to")`.
    let errorLines = LogCollector()

    /// Starts `executable` with `arguments`; `stdin` bytes (if any) are written then closed.
    init(_ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil,
         currentDirectory: String? = nil, stdin: [UInt8]? = nil) throws {
        var out: [Int32] = [0, 0], err: [Int32] = [0, 0], input: [Int32] = [-1, -1]
        guard Self.makePipe(&out), Self.makePipe(&err), stdin == nil || Self.makePipe(&input) else {
            throw ProcessError(description: "pipe: \(String(cString: strerror(errno)))")
        }
        do {
            child = try ChildProcess(executable, arguments, environment: environment, currentDirectory: currentDirectory,
                                     stdin: stdin == nil ? nil : input[0], stdout: out[1], stderr: err[1])
        } catch {
            for fd in out + err + input where fd >= 0 { close(fd) }
            throw error
        }
        close(out[1])
        close(err[1])
        startReader(out[0], isError: false)
        startReader(err[0], isError: true)
        if let stdin {
            close(input[0])
            let fd = input[1]
            Thread.detachNewThread {
                stdin.withUnsafeBytes { bytes in
                    var offset = 0
                    while offset < bytes.count {
                        let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                        if n <= 0 { break }
                        offset += n
                    }
                }
                close(fd)
            }
        }
    }

    /// A pipe whose ends close on exec (the child gets its copies through dup2).
    private static func makePipe(_ fds: inout [Int32]) -> Bool {
        guard pipe(&fds) == 0 else { return false }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return true
    }

    private func startReader(_ fd: Int32, isError: Bool) {
        readersDone.enter()
        // A plain thread (not the GCD pool): it blocks for the life of the process.
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            var partial: [UInt8] = []   // stderr bytes after the last newline
            while true {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                output.withLock { isError ? $0.err.append(contentsOf: buffer[0..<n]) : $0.out.append(contentsOf: buffer[0..<n]) }
                guard isError else { continue }
                partial.append(contentsOf: buffer[0..<n])
                while let newline = partial.firstIndex(of: UInt8(ascii: "\n")) {
                    errorLines.append(String(decoding: partial[..<newline], as: UTF8.self))
                    partial.removeSubrange(...newline)
                }
            }
            if !partial.isEmpty { errorLines.append(String(decoding: partial, as: UTF8.self)) }
            close(fd)
            readersDone.leave()
        }
    }

    /// The child's pid.
    var pid: Int32 { child.pid }
    /// `true` while the child runs.
    var isRunning: Bool { child.isRunning }
    /// Standard output so far (invalid UTF-8 replaced).
    var stdout: String { String(decoding: output.withLock { $0.out }, as: UTF8.self) }
    /// Standard error so far.
    var stderr: String { String(decoding: output.withLock { $0.err }, as: UTF8.self) }

    /// Sends `signal` (e.g. `SIGTERM`, `SIGKILL`, `SIGSTOP`) to the child.
    func send(_ signal: Int32) {
        child.signal(signal)
    }

    /// Waits until the child exits; `nil` when it still runs after `timeout`.
    func waitForExit(timeout: Duration) async -> ProcessResult? {
        guard let status = await child.wait(timeout: timeout) else { return nil }
        return result(status: status, timedOut: false)
    }

    /// SIGTERM, then SIGKILL after `grace`; returns the result once it has exited.
    @discardableResult
    func terminate(grace: Duration = .seconds(5)) async -> ProcessResult {
        send(SIGTERM)
        if let result = await waitForExit(timeout: grace) { return result }
        send(SIGKILL)
        let status = await child.wait(timeout: .seconds(10)) ?? -1
        return result(status: status, timedOut: true)
    }

    private func result(status: Int32, timedOut: Bool) -> ProcessResult {
        _ = readersDone.wait(timeout: .now() + 2)
        let code = ChildProcess.exitCode(status)
        return ProcessResult(status: code < 0 ? -code : code, exitedNormally: code >= 0,
                             stdout: stdout, stderr: stderr, timedOut: timedOut)
    }

    /// Runs a process to its end, killing it when it outlives `timeout`.
    static func run(_ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil,
                    stdin: [UInt8]? = nil, timeout: Duration = .seconds(20)) async throws -> ProcessResult {
        let p = try ManagedProcess(executable, arguments, environment: environment, stdin: stdin)
        if let result = await p.waitForExit(timeout: timeout) { return result }
        var result = await p.terminate(grace: .seconds(1))
        result.timedOut = true
        return result
    }

    /// Runs a short helper synchronously (for setup code that cannot await); throws on a
    /// non-zero exit, with its standard error.
    static func runChecked(_ executable: String, _ arguments: [String]) throws {
        let logFile = FileManager.default.temporaryDirectory.appendingPathComponent("pb-\(UUID().uuidString).err").path
        let fd = open(logFile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        defer { close(fd); unlink(logFile) }
        let child = try ChildProcess(executable, arguments, stderr: fd)
        let status = child.waitSync(timeout: .seconds(30)) ?? -1
        guard status == 0 else {
            let text = (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""
            throw ProcessError(description: "\(executable) \(arguments.joined(separator: " ")) failed (\(status)): \(text)")
        }
    }
}
