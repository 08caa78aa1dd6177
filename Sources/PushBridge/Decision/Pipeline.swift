import Foundation

/// The decision for each message (docs/decisions.md), without a broker: mapping,
/// validation, expiry, display rules, the extension stage, and rendering.
///
/// `pushbridge run` feeds it broker messages; `pushbridge try` feeds it one message offline.
package final class Pipeline: Sendable {
    package let config: BridgeConfig
    let table: RouteTable
    let mapper: RequestMapper
    let renderer: DisplayRenderer
    let stage: ExtensionStage
    /// The remembering filters' state; hand it to the next pipeline to keep it across a reload.
    let filterMemory: FilterMemory
    /// The remembering filters' memory when replicas share it (`state.redis`); hand it on too.
    let sharedMemory: (any SharedFilterMemory)?
    /// The condition routes' conditions; hand it to the next pipeline to keep them.
    package let conditions: ConditionEngine
    /// The digest routes' windows; hand it to the next pipeline to keep them.
    let digests: DigestBook
    /// Which copy to keep of a message that partly overlapping subscriptions bring twice.
    let duplicateCopies: DuplicateCopies?
    /// Gathers the routes' attachments (`nil` when no route has any).
    package let attachments: AttachmentService?
    /// The newest payloads the routes' `lookup:` entries read (`nil` when no route has any).
    let lookups: LookupStore?
    /// The filters of the routes' `lookup:` topics.
    let lookupFilters: [String]

    /// Builds the pipeline for `config`. `serviceExtension` is a Swift extension supplied
    /// by a program that links the library. `memory` carries `dedupe`, `rate_limit` and
    /// `changed` state over from a previous pipeline (unchanged filters keep theirs; the
    /// others are forgotten); by default the filters start with none. `lookups` keeps the
    /// payloads `lookup.*` reads (one store across reloads; without it every lookup is `null`); `presence`: `presence.*`.
    /// `sharedMemory`: the filters' memory in Redis (`state.redis`), used instead of `memory`.
    package init(config: BridgeConfig, logger: BridgeLogger, serviceExtension: ExtensionFactory? = nil,
                hop: (name: String, value: String)? = nil, memory: FilterMemory? = nil,
                clock: StageClock = .system, conditions: ConditionEngine? = nil, attachments: AttachmentService? = nil,
                lookups: LookupStore? = nil, digests: DigestBook? = nil, presence: PresenceBoard? = nil,
                sharedMemory: (any SharedFilterMemory)? = nil) {
        self.sharedMemory = sharedMemory
        self.config = config
        self.attachments = attachments
        let lookupFilters = config.lookupTopicFilters
        self.lookupFilters = lookupFilters
        self.lookups = lookupFilters.isEmpty ? nil : lookups
        self.mapper = RequestMapper(lookups: self.lookups, presence: config.people.isEmpty ? nil : presence)
        self.table = RouteTable(routes: config.routes)
        self.duplicateCopies = RouteSubscriptions.plan(for: config).copies
        self.renderer = DisplayRenderer(display: config.display, deadLetter: config.deadLetter,
                                        userProperties: config.broker.protocolVersion == .v5, hop: hop)
        let memory = memory ?? FilterMemory()
        self.filterMemory = memory
        self.stage = ExtensionStage(config: config.extension, filteringGranted: config.filteringGranted,
                                    serviceExtension: serviceExtension, logger: logger, clock: clock, memory: memory,
                                    sharedMemory: sharedMemory)
        memory.keep(only: config.extension.filters)
        self.conditions = conditions ?? ConditionEngine(logger: logger)
        self.conditions.configure(config.routes, now: clock.wall())
        self.digests = digests ?? DigestBook(logger: logger, wall: clock.wall)
    }

    /// Keeps `message`'s payload for the routes' lookups when its topic is one a `lookup:`
    /// reads; `true` when it was (it is decided as a message only when a route matches it too).
    package func keepForLookups(_ message: InboundMessage) -> Bool {
        guard let lookups, lookupFilters.contains(where: { TopicFilter.matches(filter: $0, topic: message.topic) }) else { return false }
        lookups.keep(topic: message.topic, payload: message.payload)
        return true
    }

    /// Keeps `message` where the routes read kept payloads from (an attachment's `from_topic`
    /// bytes, a lookup's value); `true` when either took it. A retained copy the broker replays
    /// on subscribe is stored state of unknown age: attachments keep it, but never as fresh for
    /// `max_age`.
    func intercept(_ message: InboundMessage) -> Bool {
        var taken = false
        if let attachments,
           attachments.intercept(topic: message.topic, payload: message.payload, at: message.retain ? 0 : message.receivedAt) {
            taken = true
        }
        if lookups != nil, keepForLookups(message) { taken = true }
        return taken
    }

    /// Stops the extension stage (its child process); open requests follow `on_failure`.
    package func shutdown() { stage.shutdown() }

    /// The route indexes that decide a message on `topic`, in order: the first matching route,
    /// then each next matching one while the one before has `continue: true`. Empty: unrouted.
    package func routeChain(_ topic: String) -> [Int] {
        guard var index = table.matchIndex(topic) else { return [] }
        var chain = [index]
        while let next = table.continuation(after: index, topic: topic) {
            chain.append(next)
            index = next
        }
        return chain
    }

    /// Decides `message`. `completion` is called exactly once: inline when the
    /// extension stage is synchronous, otherwise from the stage's thread.
    package func process(_ message: InboundMessage, id: String, now: Double = Date().timeIntervalSince1970,
                        completion: @escaping @Sendable (Decision) -> Void) {
        switch decide(message, id: id, now: now) {
        case .decided(let decision): completion(decision)
        case .waiting(let waiting): waiting.start(completion)
        }
    }

    /// `process` without a completion closure: the decision when it is reached in the
    /// caller's thread, otherwise what is needed to start the asynchronous steps.
    package func decide(_ message: InboundMessage, id: String, now: Double) -> Step {
        decide(message, id: id, now: now, at: table.matchIndex(message.topic))
    }

    /// `decide` by the route at `index` (the first matching one, or one a `continue: true`
    /// route hands the message on to); `nil`: no route matches.
    package func decide(_ message: InboundMessage, id: String, now: Double, at index: Int?) -> Step {
        guard let index else {
            var d = Decision(outcome: .unrouted, route: nil, rule: "rule 1: no route matches the topic")
            d.rejection = nil
            return .decided(d)
        }
        let entry = table.entry(at: index)
        let mapped = mapper.map(message, entry: entry, id: id, now: now)
        if let digest = entry.route.digest {
            return digested(decide(message, entry: entry, mapped: mapped, id: id, now: now), config: digest, context: mapped.context)
        }
        return decide(message, entry: entry, mapped: mapped, id: id, now: now)
    }

    /// `decide` by `entry`, its message mapped.
    private func decide(_ message: InboundMessage, entry: RouteTable.Entry, mapped: RequestMapper.Mapped, id: String,
                        now: Double) -> Step {
        if let condition = entry.route.condition {
            return decideCondition(message, entry: entry, condition: condition, mapped: mapped, id: id, now: now)
        }
        if message.retain && entry.route.retained == .skip {
            // Stored state the broker replays, not news (`retained: skip`): it only teaches
            // the `changed` filters its value; not validated, not dead-lettered.
            stage.teach(mapped.context)
            var d = Decision(outcome: .notDisplayed, route: entry.route.name,
                             rule: "retained state: route '\(entry.route.name)' has retained: skip")
            if case .success(let r) = mapped.request { d.request = r }
            return .decided(d)
        }
        let request: NotificationRequest
        switch mapped.request {
        case .failure(let rejection):
            return .decided(rejected(rejection, message: message, context: mapped.context, route: entry.route.name))
        case .success(let r):
            request = r
        }
        return decideRequest(request, context: mapped.context, route: entry.route.name, receivedAt: message.receivedAt, now: now,
                             attachments: entry.route.attachments)
    }

    /// Rule 2: the rejection, with its dead letter when one is configured.
    func rejected(_ rejection: Rejection, message: InboundMessage, context: MessageContext, route: String) -> Decision {
        var d = Decision(outcome: .rejected, route: route,
                         rule: "rule 2: the request failed validation (\(rejection.reason.rawValue))")
        d.rejection = rejection
        if let dl = renderer.deadLetterMessage(rejection, message: message, context: context, route: route) {
            d.publish = [dl]
        }
        return d
    }

    /// Rules 3 to 6 for a valid request.
    func decideRequest(_ request: NotificationRequest, context: MessageContext, route: String,
                       receivedAt: Double, now: Double, attachments: [AttachmentSpec] = []) -> Step {
        if let e = request.expiration, e > 0, Double(e) < now {
            var d = Decision(outcome: .expired, route: route, rule: "rule 3: apns-expiration \(e) has passed")
            d.request = request
            return .decided(d)
        }
        if let live = request.liveActivity {
            return .decided(deliver(request, context: context, receivedAt: receivedAt, modified: false,
                                    rule: "rule 4: Live Activity \(live.event.rawValue) delivered (not an alert: the extension stage does not run)"))
        }
        if let type = request.pushType, type != .alert {
            var d = Decision(outcome: .notDisplayed, route: route,
                             rule: "rule 4: push type '\(type.rawValue)' is not displayed")
            d.request = request
            return .decided(d)
        }
        if !request.content.hasAlertText {
            var d = Decision(outcome: .notDisplayed, route: route, rule: "rule 4: no alert text")
            d.request = request
            return .decided(d)
        }
        if !attachments.isEmpty, self.attachments != nil {
            // The attachments are gathered first (at most `attachments.wait`): the stage sees them.
            return .waiting(Waiting(pipeline: self, request: request, context: context, receivedAt: receivedAt, gather: attachments))
        }
        return afterAttachments(request, context: context, receivedAt: receivedAt)
    }

    /// Rules 5 and 6 for a displayable alert whose attachments (if any) are gathered.
    func afterAttachments(_ request: NotificationRequest, context: MessageContext, receivedAt: Double) -> Step {
        guard request.mutableContent else {
            return .decided(deliver(request, context: context, receivedAt: receivedAt, modified: false,
                                    rule: "rule 6: delivered (mutable-content not set, the extension stage does not run)"))
        }
        // Filters only: decided here, without a completion closure per message.
        if let result = stage.processSynchronously(request, context: context) {
            return .decided(decision(result, request: request, context: context, receivedAt: receivedAt))
        }
        return .waiting(Waiting(pipeline: self, request: request, context: context, receivedAt: receivedAt))
    }

    /// The decision for the extension stage's `result` (rule 5 applied by the stage).
    func decision(_ result: StageResult, request: NotificationRequest, context: MessageContext,
                              receivedAt: Double) -> Decision {
        // Made once, with every member, and returned as made (filled in place, it was copied).
        switch result.verdict {
        case .deliver(let content, let modified):
            // The content as mapped (the usual case) keeps the request as it is, not a changed copy.
            var r = request
            if !content.isIdentical(to: request.content) {
                r.content = content
                // An extension may keep fewer attachments, never add one: only the request's own stay.
                if content.attachments != request.content.attachments {
                    r.content.attachments = Self.narrow(content.attachments, to: request.content.attachments)
                }
            }
            let display = renderer.displayMessage(r, context: context, modified: modified, receivedAt: receivedAt)
            return Decision(outcome: .delivered, route: context.route, request: r, decidedBy: nil, rule: result.rule,
                            modified: modified, timedOut: result.timedOut, extensionFailed: result.extensionFailed,
                            stageTrace: result.filterTrace, stageSeconds: result.duration.seconds, publish: [display])
        case .suppressed(let by):
            return Decision(outcome: .suppressed, route: context.route, request: request, decidedBy: by, rule: result.rule,
                            modified: false, timedOut: result.timedOut, extensionFailed: result.extensionFailed,
                            stageTrace: result.filterTrace, stageSeconds: result.duration.seconds, publish: [])
        case .dropped(let reason):
            return Decision(outcome: .suppressed, route: context.route, request: request,
                            decidedBy: "on_failure: drop (\(reason))", rule: result.rule,
                            modified: false, timedOut: result.timedOut, extensionFailed: result.extensionFailed,
                            stageTrace: result.filterTrace, stageSeconds: result.duration.seconds, publish: [])
        }
    }

    private func deliver(_ r: NotificationRequest, context: MessageContext, receivedAt: Double,
                         modified: Bool, rule: String) -> Decision {
        let display = renderer.displayMessage(r, context: context, modified: modified, receivedAt: receivedAt)
        return Decision(outcome: .delivered, route: context.route, request: r, decidedBy: nil, rule: rule,
                        modified: modified, timedOut: false, extensionFailed: false, stageTrace: [],
                        stageSeconds: nil, publish: [display])
    }
}
