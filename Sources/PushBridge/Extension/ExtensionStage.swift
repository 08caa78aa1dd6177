import Foundation
import Synchronization

/// The notification service extension stage: filters, Swift extension, external process,
/// then SPEC section 2 rule 5.
///
/// Chain order: the declarative filters in order, then the in-process extension (if any),
/// then the external process (if any). Each step sees the content as left by the one
/// before; a step that leaves no alert text (a suppression) ends the chain. Each
/// asynchronous step has its own `time_limit` and `expire_grace`. A timeout or failure of
/// any step ends the stage with the original content (or a drop, for a failure with
/// `on_failure: drop`), as a failed or silent extension does on Apple's devices.
///
/// Requests without `mutable-content`, without alert text, or whose push type is neither
/// `alert` nor absent are returned unmodified without running anything. When no
/// asynchronous step is configured the filters run in the caller's thread and `completion`
/// is called before `process` returns. Otherwise at most `extension.concurrency` requests
/// are in the asynchronous part at once; the rest wait in arrival order. `completion` is
/// called exactly once per request, from any thread.
public final class ExtensionStage: Sendable {
    private enum Step: Sendable {
        case inProcess(ExtensionFactory)
        case command(ExtensionProcess)

        var name: String {
            switch self {
            case .inProcess: "extension"
            case .command: "command"
            }
        }
    }

    /// How the chain ended, before rule 5.
    enum ChainEnd {
        case content(NotificationContent, decidedBy: String?)
        case timedOut(String)
        case failed(String, reason: String)
    }

    /// One request travelling through the asynchronous steps.
    struct Run: Sendable {
        let request: NotificationRequest
        let context: MessageContext
        let start: Duration
        var trace: [FilterTrace]
        var admitted = false
        let completion: @Sendable (StageResult) -> Void
    }

    let config: ExtensionConfig
    let filteringGranted: Bool
    let logger: Logger
    let clock: StageClock
    private let filters: FilterChain
    private let steps: [Step]
    /// Rule 5's suppression text for each filter and step name, made once (not per message).
    let suppressedRules: [String: String]
    let admission: Admission
    private let workQueue = DispatchQueue(label: "pushbridge.extension.work", attributes: .concurrent)
    private let timerQueue = DispatchQueue(label: "pushbridge.extension.timers")
    private let open = Mutex<[ObjectIdentifier: StepAttempt]>([:])
    private let stopped = Atomic<Bool>(false)

    /// A stage for `config`; starts the external process when `config.command` is set.
    /// `memory` holds the remembering filters' state (a reload passes the previous one).
    public init(config: ExtensionConfig, filteringGranted: Bool, serviceExtension: ExtensionFactory? = nil,
                logger: Logger, clock: StageClock = .system, memory: FilterMemory = FilterMemory()) {
        self.config = config
        self.filteringGranted = filteringGranted
        self.logger = logger
        self.clock = clock
        filters = FilterChain(config.filters, clock: clock, memory: memory)
        var rules: [String: String] = [:]
        for name in config.filters.map(\.name) + ["extension", "command"] {
            rules[name] = Self.suppressedRule(who: name)
        }
        suppressedRules = rules
        var steps: [Step] = []
        if let serviceExtension { steps.append(.inProcess(serviceExtension)) }
        if let command = config.command, !command.isEmpty {
            let process = ExtensionProcess(command: command, logger: logger)
            process.start()
            steps.append(.command(process))
        }
        self.steps = steps
        admission = Admission(limit: config.concurrency, queue: workQueue)
    }

    /// Retained state: the `changed` filters that apply record the message's value.
    func teach(_ context: MessageContext) {
        if filters.hasChangedFilters { filters.teach(context) }
    }

    /// Runs `request` through the stage; `completion` receives the result exactly once.
    public func process(_ request: NotificationRequest, context: MessageContext,
                        completion: @escaping @Sendable (StageResult) -> Void) {
        if let result = begin(request, context: context, completion: completion) { completion(result) }
    }

    /// The result `process` would hand its completion, decided in the caller's thread, when
    /// no asynchronous step is configured; otherwise `nil` and nothing ran (use `process`).
    /// Spares the per-request completion closure on the common, synchronous path.
    func processSynchronously(_ request: NotificationRequest, context: MessageContext) -> StageResult? {
        guard steps.isEmpty else { return nil }
        return begin(request, context: context, completion: { _ in })
    }

    /// Everything up to the asynchronous steps: the result when the request is decided
    /// here, or `nil` once it was handed to the steps (which call `completion`).
    private func begin(_ request: NotificationRequest, context: MessageContext,
                       completion: @escaping @Sendable (StageResult) -> Void) -> StageResult? {
        let start = clock.monotonic()
        if let reason = Self.notRunReason(request) {
            return StageResult(verdict: .deliver(request.content, modified: false),
                               rule: "extension not run: \(reason); original delivered",
                               duration: clock.monotonic() - start)
        }
        var context = context
        context.content = request.content
        let filtered = filters.run(request.content, context: context)
        if stopped.load(ordering: .acquiring) {
            return result(request, start: start, trace: filtered.trace, admitted: false,
                          .failed("stage", reason: "the extension stage is shut down"))
        }
        guard filtered.content.hasAlertText, !steps.isEmpty else {
            return result(request, start: start, trace: filtered.trace, admitted: false,
                          .content(filtered.content, decidedBy: filtered.stoppedBy))
        }
        // Only a request going on to the asynchronous steps needs its `Run`.
        var run = Run(request: request, context: context, start: start, trace: filtered.trace, completion: completion)
        run.admitted = true
        let content = filtered.content
        let admittedRun = run
        var abandonedRun = run
        abandonedRun.admitted = false   // never took a place
        let notAdmitted = abandonedRun
        admission.enter(Admission.Waiter(
            start: { [self] in runStep(0, content: content, run: admittedRun) },
            abandon: { [self] in finish(notAdmitted, .failed("stage", reason: "the extension stage is shut down")) }))
        return nil
    }

    deinit { shutdown() }

    /// Stops the external process and ends every open request as a failure (`on_failure`).
    /// Requests processed afterwards fail the same way. Releasing the stage shuts it down too.
    public func shutdown() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        admission.close()
        for case .command(let process) in steps { process.shutdown() }
        let attempts = open.withLock { Array($0.values) }
        for attempt in attempts { attempt.fail("the extension stage is shut down") }
    }

    /// Why the stage does not run for `request`, or `nil` when it does.
    static func notRunReason(_ request: NotificationRequest) -> String? {
        if let type = request.pushType, type != .alert { return "push type \(type.rawValue)" }
        if !request.mutableContent { return "no mutable-content" }
        if !request.content.hasAlertText { return "no alert text" }
        return nil
    }

    // MARK: - Asynchronous steps

    private func runStep(_ index: Int, content: NotificationContent, run: Run) {
        guard index < steps.count else {
            finish(run, .content(content, decidedBy: nil))
            return
        }
        let step = steps[index]
        let name = step.name
        let logger = self.logger
        let holder = AttemptHolder()
        let attempt = StepAttempt(
            timeLimit: config.timeLimit, grace: config.expireGrace, queue: timerQueue,
            ignored: { note in logger.debug("extension: \(name) for \(run.request.id): \(note); ignored") },
            onFinish: { [self] outcome in
                // Taking the attempt out breaks the holder <-> attempt cycle (this closure holds the holder).
                if let attempt = holder.takeAttempt() { _ = open.withLock { $0.removeValue(forKey: ObjectIdentifier(attempt)) } }
                holder.runCleanUp()
                var run = run
                switch outcome {
                case .answered(let answer, let afterExpire):
                    run.trace.append(FilterTrace(name: name, verdict: afterExpire ? "answered after time_will_expire" : "answered"))
                    if answer.hasAlertText {
                        runStep(index + 1, content: answer, run: run)
                    } else {
                        finish(run, .content(answer, decidedBy: name))
                    }
                case .timedOut:
                    run.trace.append(FilterTrace(name: name, verdict: "timed out"))
                    finish(run, .timedOut(name))
                case .failed(let reason):
                    run.trace.append(FilterTrace(name: name, verdict: "failed: \(reason)"))
                    finish(run, .failed(name, reason: reason))
                }
            })
        holder.attempt = attempt
        open.withLock { $0[ObjectIdentifier(attempt)] = attempt }
        if stopped.load(ordering: .acquiring) {
            attempt.fail("the extension stage is shut down")
            return
        }
        var request = run.request
        request.content = content
        switch step {
        case .inProcess(let factory):
            startInProcess(factory, request: request, attempt: attempt, holder: holder)
        case .command(let process):
            let id = process.reserveID(for: request.id)
            holder.setCleanUp({ process.forget(id: id) }, ifFinished: attempt)
            var context = run.context
            context.content = content
            process.submit(id: id, line: ExtensionWire.requestLine(id: id, request: request, context: context, content: content),
                           attempt: attempt)
            attempt.arm(onExpire: { process.timeWillExpire(id: id) })
        }
    }

    private func startInProcess(_ factory: ExtensionFactory, request: NotificationRequest,
                                attempt: StepAttempt, holder: AttemptHolder) {
        switch factory.kind {
        case .native(let serviceExtension):
            let task = Task {
                do {
                    attempt.answer(try await serviceExtension.didReceive(request))
                } catch is CancellationError where attempt.isFinished == false && Task.isCancelled {
                    attempt.gaveUp()
                } catch {
                    attempt.fail("threw \(error)")
                }
            }
            holder.setCleanUp({ task.cancel() }, ifFinished: attempt)
            attempt.arm(onExpire: { task.cancel() })
        case .apple(let make):
            // One serial queue per request: the instance is only ever touched there.
            let queue = DispatchQueue(label: "pushbridge.extension.instance", target: workQueue)
            let box = InstanceBox()
            holder.setCleanUp({ queue.async { box.instance = nil } }, ifFinished: attempt)
            queue.async {
                let instance: UNNotificationServiceExtension
                do {
                    instance = try make()
                } catch {
                    attempt.fail("could not be created: \(error)")
                    return
                }
                box.instance = instance
                let unRequest = UNNotificationRequest(identifier: request.identifier,
                                                      content: UNNotificationContent(request.content))
                instance.didReceive(unRequest) { content in attempt.answer(content.notificationContent) }
            }
            attempt.arm(onExpire: { queue.async { box.instance?.serviceExtensionTimeWillExpire() } })
        }
    }
}

/// Late-bound links between a step's attempt and its clean-up, set after the attempt exists.
private final class AttemptHolder: Sendable {
    private let links = Mutex<(attempt: StepAttempt?, cleanUp: (@Sendable () -> Void)?)>((nil, nil))

    var attempt: StepAttempt? {
        get { links.withLock { $0.attempt } }
        set { links.withLock { $0.attempt = newValue } }
    }

    /// The attempt, cleared: once the step has ended nothing may keep it (it holds the holder).
    func takeAttempt() -> StepAttempt? {
        links.withLock { links in
            defer { links.attempt = nil }
            return links.attempt
        }
    }

    /// Sets the clean-up run when the step ends; runs it at once if it already has.
    func setCleanUp(_ cleanUp: @escaping @Sendable () -> Void, ifFinished attempt: StepAttempt) {
        links.withLock { $0.cleanUp = cleanUp }
        if attempt.isFinished { runCleanUp() }
    }

    /// Runs the clean-up once.
    func runCleanUp() {
        let cleanUp = links.withLock { links in
            defer { links.cleanUp = nil }
            return links.cleanUp
        }
        cleanUp?()
    }
}

/// Keeps an Apple-style extension instance alive while its request is open.
///
/// `@unchecked Sendable`: the instance (not `Sendable`) is created, called and released
/// only on its request's serial queue.
private final class InstanceBox: @unchecked Sendable {
    var instance: UNNotificationServiceExtension?
}
