import Foundation
import Synchronization

/// The long-lived child process of `extension.command` (SPEC section 6).
///
/// Requests go out as JSON lines on the child's stdin (written on a serial queue, so no
/// caller blocks on a full pipe); answers are read from its stdout on a dedicated thread and
/// may come in any order. Stderr lines are logged at info with an `extension:` prefix.
/// When the child exits, the requests it had been sent fail (they follow `on_failure`);
/// requests arriving while it restarts wait for the next child (their time limit still
/// runs). Restarts back off exponentially from 100 ms to 10 s; a child that lived 10 s
/// resets the backoff. A child that cannot be started fails the requests waiting for it.
/// SIGPIPE is ignored process-wide once a child is started (a write to a dead child must
/// be an error, not a signal).
final class ExtensionProcess: Sendable {
    private struct Pending {
        var attempt: StepAttempt?
        var line: String?
        /// The child generation the line was written to.
        var sentTo: UInt64?
    }

    private struct State {
        var pending: [String: Pending] = [:]
        var child: ChildConnection?
        var generation: UInt64 = 0
        var stopped = false
        var backoff: Duration = .milliseconds(100)
        var sequence: UInt64 = 0
    }

    private let state = Mutex(State())
    private let command: [String]
    private let logger: Logger

    static let minBackoff: Duration = .milliseconds(100)
    static let maxBackoff: Duration = .seconds(10)
    static let healthyLifetime: Duration = .seconds(10)

    init(command: [String], logger: Logger) {
        self.command = command
        self.logger = logger
    }

    /// Starts the first child.
    func start() { launch() }

    /// Reserves a unique wire id for a request: its apns-id, suffixed when already in flight.
    func reserveID(for requestID: String) -> String {
        state.withLock { s in
            var id = requestID
            while s.pending[id] != nil {
                s.sequence += 1
                id = "\(requestID)#\(s.sequence)"
            }
            s.pending[id] = Pending()
            return id
        }
    }

    /// Sends `line` for the reserved `id`; `attempt` receives the answer or the failure.
    func submit(id: String, line: String, attempt: StepAttempt) {
        enum Action { case write(ChildConnection), wait, stopped }
        let action: Action = state.withLock { s in
            guard !s.stopped else { s.pending[id] = nil; return .stopped }
            guard s.pending[id] != nil else { return .wait }   // already ended (timed out)
            s.pending[id]!.attempt = attempt
            s.pending[id]!.line = line
            guard let child = s.child else { return .wait }
            s.pending[id]!.sentTo = child.generation
            return .write(child)
        }
        switch action {
        case .write(let child): child.write(line)
        case .stopped: attempt.fail("extension process is stopped")
        case .wait: break
        }
    }

    /// Tells the child that time is running out for `id`.
    func timeWillExpire(id: String) {
        let child: ChildConnection? = state.withLock { s in
            guard let sentTo = s.pending[id]?.sentTo, let child = s.child, child.generation == sentTo else { return nil }
            return child
        }
        child?.write(ExtensionWire.timeWillExpireLine(id: id))
    }

    /// Forgets `id` once its step has ended.
    func forget(id: String) {
        state.withLock { _ = $0.pending.removeValue(forKey: id) }
    }

    /// Stops the child (SIGTERM, stdin closed) and fails every open request; no restart.
    func shutdown() {
        let (child, attempts): (ChildConnection?, [StepAttempt]) = state.withLock { s in
            s.stopped = true
            let child = s.child
            s.child = nil
            let attempts = s.pending.values.compactMap(\.attempt)
            s.pending = [:]
            return (child, attempts)
        }
        child?.stop()
        for attempt in attempts { attempt.fail("extension process stopped") }
    }

    /// The running child's process id, if any (for tests and logs).
    var childPID: Int32? { state.withLock { $0.child?.process.processIdentifier } }

    // MARK: - Child lifecycle

    private func launch() {
        let generation: UInt64? = state.withLock { s in
            guard !s.stopped else { return nil }
            s.generation += 1
            return s.generation
        }
        guard let generation else { return }
        signal(SIGPIPE, SIG_IGN)
        let process = Process()
        if let first = command.first, first.contains("/") {
            process.executableURL = URL(fileURLWithPath: first)
            process.arguments = Array(command.dropFirst())
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = command
        }
        let input = Foundation.Pipe(), output = Foundation.Pipe(), errors = Foundation.Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        do {
            try process.run()
        } catch {
            logger.error("extension: cannot start \(command.joined(separator: " ")): \(error)")
            let waiting: [StepAttempt] = state.withLock { s in
                let ids = s.pending.filter { $0.value.line != nil && $0.value.sentTo == nil }.map(\.key)
                return ids.compactMap { s.pending.removeValue(forKey: $0)?.attempt }
            }
            for attempt in waiting { attempt.fail("extension process could not be started") }
            scheduleRestart(afterExitOf: nil)
            return
        }
        let child = ChildConnection(process: process, stdin: input.fileHandleForWriting, generation: generation)
        let lines: [String]? = state.withLock { s in
            guard !s.stopped else { return nil }
            s.child = child
            var lines: [String] = []
            for (id, pending) in s.pending where pending.sentTo == nil {
                guard let line = pending.line else { continue }
                s.pending[id]!.sentTo = generation
                lines.append(line)
            }
            return lines
        }
        guard let lines else {
            child.stop()
            return
        }
        logger.info("extension: started \(command.joined(separator: " ")) (pid \(process.processIdentifier))")
        for line in lines { child.write(line) }
        // The threads hold the read handles: a FileHandle closes its descriptor when freed.
        let stdout = output.fileHandleForReading
        let stderr = errors.fileHandleForReading
        let readerOut = Thread { [self] in
            LineReader.read(fd: stdout.fileDescriptor) { line in self.received(line) }
            try? stdout.close()
            self.exited(child)
        }
        readerOut.name = "pushbridge.extension.stdout"
        readerOut.start()
        let readerErr = Thread { [logger] in
            LineReader.read(fd: stderr.fileDescriptor) { line in logger.info("extension: \(line)") }
            try? stderr.close()
        }
        readerErr.name = "pushbridge.extension.stderr"
        readerErr.start()
    }

    private func received(_ line: String) {
        guard !line.allSatisfy(\.isWhitespace) else { return }
        do {
            let (id, content) = try ExtensionWire.answer(line)
            guard let attempt = takeAttempt(id) else {
                logger.debug("extension: answer for '\(id)' ignored (late or unknown)")
                return
            }
            attempt.answer(content)
        } catch {
            guard let id = error.id, let attempt = takeAttempt(id) else {
                // The line may carry notification text: its content is logged at debug only.
                logger.warning("extension: unusable line ignored (\(error.description), \(line.utf8.count) bytes)")
                logger.debug("extension: the unusable line: \(line.prefix(200))")
                return
            }
            logger.warning("extension: garbage answer for '\(id)': \(error.description)")
            attempt.fail("answered garbage: \(error.description)")
        }
    }

    private func takeAttempt(_ id: String) -> StepAttempt? {
        state.withLock { s in
            guard let attempt = s.pending[id]?.attempt, s.pending[id]?.sentTo != nil else { return nil }
            s.pending[id] = nil
            return attempt
        }
    }

    /// The child's stdout closed: reap it, fail what it had, restart.
    private func exited(_ child: ChildConnection) {
        if child.process.isRunning { child.process.terminate() }
        child.process.waitUntilExit()
        child.closeInput()
        let status = child.process.terminationStatus
        let how = child.process.terminationReason == .uncaughtSignal ? "signal \(status)" : "status \(status)"
        let failed: [StepAttempt] = state.withLock { s in
            if s.child === child { s.child = nil }
            let ids = s.pending.filter { $0.value.sentTo == child.generation }.map(\.key)
            return ids.compactMap { s.pending.removeValue(forKey: $0)?.attempt }
        }
        for attempt in failed { attempt.fail("extension process exited (\(how))") }
        scheduleRestart(afterExitOf: child, how: how)
    }

    private func scheduleRestart(afterExitOf child: ChildConnection?, how: String = "") {
        let lived = child.map { ContinuousClock.now - $0.startedAt } ?? .zero
        let delay: Duration? = state.withLock { s in
            guard !s.stopped else { return nil }
            if lived >= Self.healthyLifetime { s.backoff = Self.minBackoff }
            let delay = s.backoff
            s.backoff = min(s.backoff * 2, Self.maxBackoff)
            return delay
        }
        guard let delay else { return }
        if child != nil { logger.warning("extension: process exited (\(how)); restarting in \(delay)") }
        DispatchQueue.global().asyncAfter(deadline: .now() + delay.dispatchInterval) { [self] in launch() }
    }
}
