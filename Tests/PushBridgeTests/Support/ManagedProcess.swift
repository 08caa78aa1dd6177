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
///
/// `@unchecked Sendable`: `Process` is not Sendable, but after `init` it is only asked
/// for its pid/running state/status, which Foundation guards; captured output sits in a `Mutex`.
final class ManagedProcess: @unchecked Sendable {
    private let process = Process()
    private let output = Mutex<(out: [UInt8], err: [UInt8])>(([], []))
    private let readersDone = DispatchGroup()

    /// Starts `executable` with `arguments`; `stdin` bytes (if any) are written then closed.
    init(_ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil,
         currentDirectory: String? = nil, stdin: [UInt8]? = nil) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = stdin == nil ? FileHandle.nullDevice : input
        do { try withSignalsUnblocked { try process.run() } } catch {
            throw ProcessError(description: "cannot start \(executable): \(error)")
        }
        startReader(out.fileHandleForReading, isError: false)
        startReader(err.fileHandleForReading, isError: true)
        if let stdin {
            let writer = input.fileHandleForWriting
            Thread.detachNewThread {
                try? writer.write(contentsOf: stdin)
                try? writer.close()
            }
        }
    }

    private func startReader(_ handle: FileHandle, isError: Bool) {
        readersDone.enter()
        // A plain thread (not the GCD pool): it blocks for the life of the process.
        Thread.detachNewThread { [self] in
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                output.withLock { isError ? $0.err.append(contentsOf: data) : $0.out.append(contentsOf: data) }
            }
            readersDone.leave()
        }
    }

    /// The child's pid.
    var pid: Int32 { process.processIdentifier }
    /// `true` while the child runs.
    var isRunning: Bool { process.isRunning }
    /// Standard output so far (invalid UTF-8 replaced).
    var stdout: String { String(decoding: output.withLock { $0.out }, as: UTF8.self) }
    /// Standard error so far.
    var stderr: String { String(decoding: output.withLock { $0.err }, as: UTF8.self) }

    /// Sends `signal` (e.g. `SIGTERM`, `SIGKILL`, `SIGSTOP`) to the child.
    func send(_ signal: Int32) {
        if process.isRunning { kill(process.processIdentifier, signal) }
    }

    /// Waits until the child exits; `nil` when it still runs after `timeout`.
    func waitForExit(timeout: Duration) async -> ProcessResult? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return finishedResult(timedOut: false)
    }

    /// SIGTERM, then SIGKILL after `grace`; returns the result once it has exited.
    @discardableResult
    func terminate(grace: Duration = .seconds(5)) async -> ProcessResult {
        send(SIGTERM)
        if let result = await waitForExit(timeout: grace) { return result }
        send(SIGKILL)
        return await waitForExit(timeout: .seconds(10)) ?? finishedResult(timedOut: true)
    }

    private func finishedResult(timedOut: Bool) -> ProcessResult {
        if !process.isRunning { _ = readersDone.wait(timeout: .now() + 2) }
        let normal = !process.isRunning && process.terminationReason == .exit
        return ProcessResult(status: process.isRunning ? -1 : process.terminationStatus,
                             exitedNormally: normal, stdout: stdout, stderr: stderr, timedOut: timedOut)
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
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try withSignalsUnblocked { try p.run() }
        let data = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw ProcessError(description: "\(executable) \(arguments.joined(separator: " ")) failed "
                               + "(\(p.terminationStatus)): \(String(decoding: data, as: UTF8.self))")
        }
    }
}

/// Waits until `condition` holds, checking every 10 ms; throws after `timeout`.
func eventually(_ what: @autoclosure () -> String = "condition", timeout: Duration = .seconds(10),
                _ condition: () throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while try !condition() {
        if ContinuousClock.now >= deadline {
            throw ProcessError(description: "timed out after \(timeout) waiting for \(what())")
        }
        try await Task.sleep(for: .milliseconds(10))
    }
}

/// Runs `body` (which starts a child process) with no signal blocked on this thread.
///
/// A child inherits the spawning thread's signal mask, and Swift concurrency runs tests on
/// libdispatch worker threads, which block every asynchronous signal. mosquitto started
/// from such a thread never sees its SIGTERM (it sits pending), so `TestBroker.stop()`
/// waited forever; a `pushbridge run` child would ignore a plain SIGINT handler the same way.
func withSignalsUnblocked<R>(_ body: () throws -> R) rethrows -> R {
    var none = sigset_t()
    var saved = sigset_t()
    sigemptyset(&none)
    pthread_sigmask(SIG_SETMASK, &none, &saved)
    defer { pthread_sigmask(SIG_SETMASK, &saved, nil) }
    return try body()
}
