import Foundation
import Synchronization

/// The long-lived child process of `extension.command`, made by `make` (docs/formats.md,
/// "External extension process").
///
/// Requests go out as JSON lines on the child's stdin; answers come back on its stdout in
/// any order. Stderr lines are logged at info with an `extension:` prefix. When the child
/// exits, the requests it had been sent fail (they follow `on_failure`); requests arriving
/// while it restarts wait for the next child (their time limit still runs). Restarts back
/// off exponentially from 100 ms to 10 s; a child that lived 10 s resets the backoff; a
/// restart that cannot start the child fails the requests waiting for it and backs off again.
/// SIGPIPE is ignored process-wide once a child is started (a write to a dead child must
/// be an error, not a signal).
final class ExtensionProcess: Sendable {
    private struct Pending {
        let attempt: StepAttempt
        let line: String
        /// The child generation the line was written to.
        var sentTo: UInt64?
    }

    private struct State {
        var pending: [String: Pending] = [:]
        var child: ChildConnection?
        var generation: UInt64 = 0
        var stopped = false
        var backoff = ExtensionProcess.minBackoff
        var sequence: UInt64 = 0
    }

    private let state = Mutex(State())
    private let command: [String]
    private let logger: BridgeLogger

    static let minBackoff: Duration = .milliseconds(100)
    static let maxBackoff: Duration = .seconds(10)
    static let healthyLifetime: Duration = .seconds(10)

    private init(command: [String], logger: BridgeLogger) {
        self.command = command
        self.logger = logger
    }

    /// Starts the first child of `command`; throws when it cannot be started.
    static func make(command: [String], logger: BridgeLogger) throws -> ExtensionProcess {
        let process = ExtensionProcess(command: command, logger: logger)
        try process.launch()
        return process
    }

    /// A process whose first child could not be started: it tries again on the restart
    /// backoff; requests wait for a child and fail when a try fails.
    static func retrying(command: [String], logger: BridgeLogger) -> ExtensionProcess {
        let process = ExtensionProcess(command: command, logger: logger)
        process.restart(lived: nil, how: "")
        return process
    }

    /// Sends `request` (with `context`) to the child, or to the next one while it restarts;
    /// `attempt` gets the answer or the failure. Returns the request's wire id: its apns-id,
    /// suffixed when that is already in flight.
    func send(_ request: NotificationRequest, context: MessageContext, to attempt: StepAttempt) -> String {
        let (id, line, child): (String, String, ChildConnection?) = state.withLock { s in
            var id = request.id
            while s.pending[id] != nil {
                s.sequence += 1
                id = "\(request.id)#\(s.sequence)"
            }
            let line = ExtensionWire.requestLine(id: id, request: request, context: context, content: request.content)
            s.pending[id] = Pending(attempt: attempt, line: line, sentTo: s.child?.generation)
            return (id, line, s.child)
        }
        child?.write(line)
        return id
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
        _ = state.withLock { $0.pending.removeValue(forKey: id) }
    }

    /// Stops the child (stdin closed, SIGTERM); no restart. The stage fails the open requests.
    func shutdown() {
        let child: ChildConnection? = state.withLock { s in
            s.stopped = true
            defer { s.child = nil }
            return s.child
        }
        child?.stop()
    }

    // MARK: - Child lifecycle

    /// Starts a child and writes it the requests waiting for one.
    private func launch() throws {
        let generation: UInt64? = state.withLock { s in
            guard !s.stopped else { return nil }
            s.generation += 1
            return s.generation
        }
        guard let generation else { return }
        signal(SIGPIPE, SIG_IGN)
        let child = try ChildConnection.spawn(command, generation: generation)
        let lines: [String]? = state.withLock { s in
            guard !s.stopped else { return nil }
            s.child = child
            var lines: [String] = []
            for (id, pending) in s.pending where pending.sentTo == nil {
                s.pending[id]!.sentTo = generation
                lines.append(pending.line)
            }
            return lines
        }
        child.read(line: { [self] in received($0) }, log: { [logger] in logger.info("extension: \($0)") },
                   exited: { [self] in exited(child, how: $0) })
        guard let lines else { return child.stop() }
        logger.info("extension: started \(command.joined(separator: " ")) (pid \(child.pid))")
        for line in lines { child.write(line) }
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
            guard s.pending[id]?.sentTo != nil else { return nil }
            return s.pending.removeValue(forKey: id)?.attempt
        }
    }

    /// The child has exited and its stdout has ended: fail what it had, restart.
    private func exited(_ child: ChildConnection, how: String) {
        let failed = removeAll { $0.sentTo == child.generation } also: { s in if s.child === child { s.child = nil } }
        for attempt in failed { attempt.fail("extension process exited (\(how))") }
        restart(lived: ContinuousClock.now - child.startedAt, how: how)
    }

    /// Removes and returns the attempts whose entry matches, after `also` ran under the same lock.
    private func removeAll(where match: (Pending) -> Bool, also: (inout State) -> Void = { _ in }) -> [StepAttempt] {
        state.withLock { s in
            also(&s)
            let ids = s.pending.filter { match($0.value) }.map(\.key)
            return ids.compactMap { s.pending.removeValue(forKey: $0)?.attempt }
        }
    }

    /// The documented backoff: one timer per restart, never a loop.
    private func restart(lived: Duration?, how: String) {
        let delay: Duration? = state.withLock { s in
            guard !s.stopped else { return nil }
            if let lived, lived >= Self.healthyLifetime { s.backoff = Self.minBackoff }
            defer { s.backoff = min(s.backoff * 2, Self.maxBackoff) }
            return s.backoff
        }
        guard let delay else { return }
        if lived != nil { logger.warning("extension: process exited (\(how)); restarting in \(delay)") }
        DueTimer.after(delay) { [self] in
            do {
                try launch()
            } catch {
                logger.error("extension: cannot start \(command.joined(separator: " ")): \(error)")
                let waiting = removeAll { $0.sentTo == nil }
                for attempt in waiting { attempt.fail("extension process could not be started") }
                restart(lived: nil, how: "")
            }
        }
    }
}
