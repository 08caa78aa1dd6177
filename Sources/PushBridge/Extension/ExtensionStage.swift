import Foundation
import Synchronization

/// The notification service extension stage: filters, Swift extension, external process,
/// then rule 5 of docs/decisions.md (what the end of the chain means, by entitlement and push type).
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
/// are in the asynchronous steps at once (one task each, `runSteps`, on the stage's own
/// executor); the rest wait in arrival order. `completion` is called exactly once per
/// request, from any thread.
final class ExtensionStage: Sendable {
    private enum Step: Sendable {
        case native(any NotificationServiceExtension)
        case apple(@Sendable () throws -> UNNotificationServiceExtension)
        case command(ExtensionProcess)

        var name: String {
            switch self {
            case .native, .apple: "extension"
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

    /// A request that passed the filters and goes on to the asynchronous steps.
    private struct Run: Sendable {
        let request: NotificationRequest
        let context: MessageContext
        let start: Duration
        let trace: [FilterTrace]
        let content: NotificationContent
    }

    private enum Begun {
        case decided(StageResult)
        case steps(Run)
        /// The filters ran; the shared memory (`state.redis`) decides their remembering steps.
        case shared(NotificationRequest, MessageContext, start: Duration, FilterChain.Result)
    }

    let config: ExtensionConfig
    let filteringGranted: Bool
    let logger: BridgeLogger
    let clock: StageClock
    private let filters: FilterChain
    private let steps: [Step]
    /// Rule 5's suppression text for each filter and step name, made once (not per message).
    /// Looked up by the name's bytes (`ByteKeyIndex`): once per suppressed message.
    let suppressedRules: (index: ByteKeyIndex, texts: [String])
    let admission: Admission
    /// Runs the Apple-style instances (one serial queue per request on it) and the time limits.
    private let queue = DispatchQueue(label: "pushbridge.extension", attributes: .concurrent)
    private let executor: StageExecutor
    /// The steps waiting for an answer, failed by `shutdown`.
    private let open = Mutex<[ObjectIdentifier: StepAttempt]>([:])
    private let stopped = Atomic<Bool>(false)

    /// A stage for `config`; starts the external process when `config.command` is set (one
    /// that cannot be started is logged, and fails each request that reaches it).
    /// `memory` holds the remembering filters' state (a reload passes the previous one).
    init(config: ExtensionConfig, filteringGranted: Bool, serviceExtension: ExtensionFactory? = nil,
                logger: BridgeLogger, clock: StageClock = .system, memory: FilterMemory = FilterMemory(),
                sharedMemory: (any SharedFilterMemory)? = nil) {
        self.config = config
        self.filteringGranted = filteringGranted
        self.logger = logger
        self.clock = clock
        filters = FilterChain(config.filters, clock: clock, memory: memory, shared: sharedMemory)
        var rules = (index: ByteKeyIndex(), texts: [String]())
        for name in config.filters.map(\.name) + ["extension", "command"] where rules.index.value(for: name) == nil {
            rules.index.set(rules.texts.count, for: name)
            rules.texts.append(Self.suppressedRule(who: name))
        }
        suppressedRules = rules
        var steps: [Step] = []
        switch serviceExtension?.kind {
        case .native(let serviceExtension): steps.append(.native(serviceExtension))
        case .apple(let make): steps.append(.apple(make))
        case nil: break
        }
        if let command = config.command, !command.isEmpty {
            do {
                steps.append(.command(try ExtensionProcess.make(command: command, logger: logger)))
            } catch {
                logger.error("extension: cannot start \(command.joined(separator: " ")): \(error)")
                // Retried with the restart backoff (a program installed later is picked up).
                steps.append(.command(ExtensionProcess.retrying(command: command, logger: logger)))
            }
        }
        self.steps = steps
        admission = Admission(limit: config.concurrency, queue: queue)
        executor = StageExecutor(queue: queue)
    }

    /// Retained state: the `changed` filters that apply record the message's value.
    func teach(_ context: MessageContext) {
        if filters.hasChangedFilters { filters.teach(context) }
    }

    /// Runs `request` through the stage; `completion` receives the result exactly once.
    package func process(_ request: NotificationRequest, context: MessageContext,
                        completion: @escaping @Sendable (StageResult) -> Void) {
        switch begin(request, context: context) {
        case .decided(let result):
            completion(result)
        case .steps(let run):
            enter(run, completion)
        case .shared(let request, let context, let start, let filtered):
            guard let shared = filters.shared else { return }
            // Decided once per message and route: a replay after a crash gets the first answers.
            let once = context.messageID + "/" + context.route
            shared.decide(filtered.pending.map(\.step), once: once) { [self] answers in
                switch afterFilters(request, context: context, start: start, FilterChain.settle(filtered, answers: answers)) {
                case .decided(let result): completion(result)
                case .steps(let run): enter(run, completion)
                case .shared: break  // settled: nothing is pending any more
                }
            }
        }
    }

    /// Admits `run` to the asynchronous steps (in arrival order, at most `concurrency` at once).
    private func enter(_ run: Run, _ completion: @escaping @Sendable (StageResult) -> Void) {
        admission.enter(Admission.Waiter(
            start: { [self] in Task(executorPreference: executor) { [self] in completion(await runSteps(run)) } },
            abandon: { [self] in
                completion(result(run.request, start: run.start, trace: run.trace, admitted: false,
                                  .failed("stage", reason: "the extension stage is shut down")))
            }))
    }

    /// The result `process` would hand its completion, decided in the caller's thread, when
    /// no asynchronous step is configured; otherwise `nil` and nothing ran (use `process`).
    /// Spares the per-request completion closure on the common, synchronous path.
    func processSynchronously(_ request: NotificationRequest, context: MessageContext) -> StageResult? {
        // A message whose filters decide in the shared memory waits for it: the chain runs once, in `process`.
        guard steps.isEmpty, !filters.sharesMemory(route: context.route),
              case .decided(let result) = begin(request, context: context) else { return nil }
        return result
    }

    /// Everything up to the asynchronous steps: the result when the request is decided here.
    private func begin(_ request: NotificationRequest, context: MessageContext) -> Begun {
        let start = clock.monotonic()
        if let reason = Self.notRunReason(request) {
            return .decided(StageResult(verdict: .deliver(request.content, modified: false),
                                        rule: "extension not run: \(reason); original delivered",
                                        duration: clock.monotonic() - start))
        }
        var context = context
        context.content = request.content
        let filtered = filters.run(request.content, context: context)
        if !filtered.pending.isEmpty { return .shared(request, context, start: start, filtered) }
        return afterFilters(request, context: context, start: start, filtered)
    }

    /// What follows the filters: the result when the chain ended, else the asynchronous steps.
    private func afterFilters(_ request: NotificationRequest, context: MessageContext, start: Duration,
                              _ filtered: FilterChain.Result) -> Begun {
        if stopped.load(ordering: .acquiring) {
            return .decided(result(request, start: start, trace: filtered.trace, admitted: false,
                                   .failed("stage", reason: "the extension stage is shut down")))
        }
        guard filtered.content.hasAlertText, !steps.isEmpty else {
            return .decided(result(request, start: start, trace: filtered.trace, admitted: false,
                                   .content(filtered.content, decidedBy: filtered.stoppedBy)))
        }
        return .steps(Run(request: request, context: context, start: start, trace: filtered.trace,
                          content: filtered.content))
    }

    deinit { shutdown() }

    /// Stops the external process and ends every open request as a failure (`on_failure`).
    /// Requests processed afterwards fail the same way. Releasing the stage shuts it down too.
    package func shutdown() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        admission.close()
        for case .command(let process) in steps { process.shutdown() }
        for attempt in open.withLock({ Array($0.values) }) { attempt.fail("the extension stage is shut down") }
    }

    /// Why the stage does not run for `request`, or `nil` when it does.
    static func notRunReason(_ request: NotificationRequest) -> String? {
        if let type = request.pushType, type != .alert { return "push type \(type.rawValue)" }
        if !request.mutableContent { return "no mutable-content" }
        if !request.content.hasAlertText { return "no alert text" }
        return nil
    }

    // MARK: - Asynchronous steps

    /// The asynchronous steps for one admitted request, then rule 5.
    private func runSteps(_ run: Run) async -> StageResult {
        var trace = run.trace
        let end = await chain(run, trace: &trace)
        return result(run.request, start: run.start, trace: trace, admitted: true, end)
    }

    /// The steps in order, each within its time limit, until one ends the chain.
    private func chain(_ run: Run, trace: inout [FilterTrace]) async -> ChainEnd {
        var request = run.request
        request.content = run.content
        for step in steps {
            switch await attempt(step, request, context: run.context) {
            case .answered(let answer, let afterExpire):
                trace.append(FilterTrace(name: step.name, verdict: afterExpire ? "answered after time_will_expire" : "answered"))
                guard answer.hasAlertText else { return .content(answer, decidedBy: step.name) }
                request.content = answer
            case .timedOut:
                trace.append(FilterTrace(name: step.name, verdict: "timed out"))
                return .timedOut(step.name)
            case .failed(let reason):
                trace.append(FilterTrace(name: step.name, verdict: "failed: \(reason)"))
                return .failed(step.name, reason: reason)
            }
        }
        return .content(request.content, decidedBy: nil)
    }

    /// One step for `request`: started, then awaited until it answers, fails or runs out of time.
    private func attempt(_ step: Step, _ request: NotificationRequest, context: MessageContext) async -> StepAttempt.Outcome {
        let attempt = StepAttempt()
        let key = ObjectIdentifier(attempt)
        open.withLock { $0[key] = attempt }
        defer { _ = open.withLock { $0.removeValue(forKey: key) } }
        if stopped.load(ordering: .acquiring) { attempt.fail("the extension stage is shut down") }
        let (timeLimit, grace, queue) = (config.timeLimit, config.expireGrace, queue)
        switch step {
        case .native(let serviceExtension):
            let task = Task {
                do {
                    attempt.answer(try await serviceExtension.didReceive(request))
                } catch is CancellationError where Task.isCancelled {
                    attempt.gaveUp()
                } catch {
                    attempt.fail("threw \(error)")
                }
            }
            defer { task.cancel() }
            return await attempt.outcome(timeLimit: timeLimit, grace: grace, queue: queue) { task.cancel() }
        case .apple(let make):
            // One serial queue per request: the instance is only ever touched there.
            let instanceQueue = DispatchQueue(label: "pushbridge.extension.instance", target: queue)
            let box = InstanceBox()
            instanceQueue.async {
                do {
                    box.instance = try make()
                } catch {
                    return attempt.fail("could not be created: \(error)")
                }
                let unRequest = UNNotificationRequest(identifier: request.identifier,
                                                      content: UNNotificationContent(request.content))
                box.instance?.didReceive(unRequest) { attempt.answer($0.notificationContent) }
            }
            defer { instanceQueue.async { box.instance = nil } }
            return await attempt.outcome(timeLimit: timeLimit, grace: grace, queue: queue) {
                instanceQueue.async { box.instance?.serviceExtensionTimeWillExpire() }
            }
        case .command(let process):
            var context = context
            context.content = request.content
            let id = process.send(request, context: context, to: attempt)
            defer { process.forget(id: id) }
            return await attempt.outcome(timeLimit: timeLimit, grace: grace, queue: queue) {
                process.timeWillExpire(id: id)
            }
        }
    }
}

/// Keeps an Apple-style extension instance alive while its request is open.
///
/// `@unchecked Sendable`: the instance (not `Sendable`) is created, called and released
/// only on its request's serial queue.
private final class InstanceBox: @unchecked Sendable {
    var instance: UNNotificationServiceExtension?
}
