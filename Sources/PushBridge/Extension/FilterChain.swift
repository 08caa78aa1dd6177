import Foundation

/// The declarative filters of `extension.filters` (docs/configuration.md), run synchronously in order.
///
/// Each filter sees the content as left by the one before (`context.content` is kept up to
/// date). The chain stops at the first filter that leaves content without alert text —
/// a `suppress`, `dedupe`, `rate_limit`, `changed` or `quiet_hours` that fires hands back
/// empty content. The remembering filters keep their memory in a `FilterMemory`, which a
/// reload hands on to the next chain.
/// Whether that really suppresses is decided later by rule 5 (entitlement, push type).
final class FilterChain: Sendable {
    /// What the chain produced.
    struct Result: Sendable {
        var content: NotificationContent
        /// The filter that left the content without alert text, if one did.
        var stoppedBy: String?
        var trace: [FilterTrace]
        /// The remembering filters' steps a shared memory must decide (`settle` applies its
        /// answers); empty with a memory in this process.
        var pending: [Pending] = []
    }

    /// A step of a remembering filter waiting for the shared memory's answer.
    struct Pending: Sendable {
        var step: FilterMemoryStep
        /// Its entry in the trace (written `passed` until the answer comes).
        var traceIndex: Int
        var name: String
        /// `true` for `rate_limit` (its refusal reads "rate limit", a `dedupe`'s "duplicate").
        var rateLimit: Bool
    }

    /// A class, so walking the chain per message does not copy each filter's config.
    private final class Compiled: Sendable {
        let config: FilterConfig
        /// Hit memory for `dedupe` and `rate_limit`.
        let windows: KeyedWindows?
        /// Value memory for `changed`.
        let values: ChangedValues?
        /// The zone of a `quiet_hours` filter; `nil` uses the message context's zone.
        let timeZone: TimeZone?
        /// A `suppress` filter's condition (taken out of `config` once, not per message).
        private let suppressCondition: Expression?
        /// The filter's memory identity (its name and definition), made once: a shared memory's
        /// steps carry it per message.
        let memoryIdentity: String
        /// The trace of a chain that ends with this filter as its only entry, for the usual
        /// verdicts, made once: such a message's trace is then shared, not allocated.
        let passedTrace: [FilterTrace]
        let suppressedTrace: [FilterTrace]
        let skippedForRouteTrace: [FilterTrace]
        let skippedWhenFalseTrace: [FilterTrace]

        init(config: FilterConfig, windows: KeyedWindows? = nil, values: ChangedValues? = nil,
             timeZone: TimeZone? = nil) {
            self.config = config
            self.windows = windows
            self.values = values
            self.timeZone = timeZone
            memoryIdentity = config.hasMemory ? config.memoryIdentity : ""
            if case .suppress(let condition) = config.action { suppressCondition = condition } else { suppressCondition = nil }
            passedTrace = [FilterTrace(name: config.name, verdict: FilterChain.passed)]
            suppressedTrace = [FilterTrace(name: config.name, verdict: FilterChain.suppressed)]
            skippedForRouteTrace = [FilterTrace(name: config.name, verdict: FilterChain.skippedForRoute)]
            skippedWhenFalseTrace = [FilterTrace(name: config.name, verdict: FilterChain.skippedWhenFalse)]
        }

        /// The shared one-entry trace for `verdict`, if it is one of the usual ones.
        func sharedTrace(_ verdict: String) -> [FilterTrace]? {
            if verdict == FilterChain.passed { return passedTrace }
            if verdict == FilterChain.suppressed { return suppressedTrace }
            if verdict == FilterChain.skippedWhenFalse { return skippedWhenFalseTrace }
            if verdict == FilterChain.skippedForRoute { return skippedForRouteTrace }
            return nil
        }

        /// For a `suppress` filter, whether its condition holds; `nil` for the other actions.
        /// The condition is evaluated where it is stored (no copy of it per message).
        func suppresses(in context: MessageContext) -> Bool? {
            suppressCondition?.isTrue(in: context)
        }
    }

    private let filters: [Compiled]
    private let clock: StageClock
    /// `true` when a `changed` filter exists (retained state has something to teach).
    let hasChangedFilters: Bool
    /// Where the remembering filters' memory is when replicas share it (`state.redis`); `nil`: `memory`.
    let shared: (any SharedFilterMemory)?
    /// With `shared`: the routes a remembering filter applies to (`nil`: every route has one).
    private let sharedRoutes: Set<String>?

    init(_ configs: [FilterConfig], clock: StageClock, memory: FilterMemory = FilterMemory(),
         shared: (any SharedFilterMemory)? = nil) {
        self.clock = clock
        self.shared = shared
        filters = configs.map { config in
            if shared != nil, config.hasMemory { return Compiled(config: config) }
            switch config.action {
            case .dedupe, .rateLimit:
                return Compiled(config: config, windows: memory.windows(for: config))
            case .changed:
                return Compiled(config: config, values: memory.changedValues(for: config))
            case .quietHours(_, _, let zone, _):
                return Compiled(config: config, timeZone: zone.flatMap(TimeZone.init(identifier:)))
            case .suppress, .set:
                return Compiled(config: config)
            }
        }
        hasChangedFilters = filters.contains { if case .changed = $0.config.action { true } else { false } }
        let remembering = configs.filter(\.hasMemory)
        sharedRoutes = remembering.contains { $0.routes == nil } ? nil : Set(remembering.flatMap { $0.routes ?? [] })

    }

    /// Whether a message of `route` may have steps for the shared memory (then its decision
    /// waits for Redis: the caller need not run the chain in its own thread first).
    func sharesMemory(route: String) -> Bool {
        guard shared != nil else { return false }
        return sharedRoutes?.contains(route) ?? true
    }

    /// Retained state (a retained message on a `retained: skip` route): each `changed` filter
    /// that applies to the message's route (and whose `when` holds) records the message's value,
    /// deciding nothing.
    func teach(_ context: MessageContext) {
        var steps: [FilterMemoryStep] = []
        for filter in filters {
            guard case .changed(let key, let value, _, _) = filter.config.action else { continue }
            if let routes = filter.config.routes, !routes.contains(context.route) { continue }
            if let when = filter.config.when, !when.isTrue(in: context) { continue }
            if let values = filter.values {
                values.record(key.render(in: context), value: value.render(in: context))
            } else {
                steps.append(FilterMemoryStep(filter: filter.config.memoryIdentity, key: key.render(in: context),
                                              kind: .teach(value: value.render(in: context))))
            }
        }
        if !steps.isEmpty { shared?.teach(steps) }
    }

    /// The usual verdicts (`FilterTrace.verdict`).
    static let passed = "passed"
    static let suppressed = "suppressed"
    static let skippedForRoute = "skipped (route)"
    static let skippedWhenFalse = "skipped (when false)"

    /// Runs every filter on `content` in order.
    func run(_ content: NotificationContent, context: MessageContext) -> Result {
        var context = context
        context.content = content
        // A trace's first entry with a usual verdict is the filter's shared one-entry array (no
        // allocation for a chain of one filter, or one that ends at its first); a second entry
        // copies it, with room for the rest.
        var trace: [FilterTrace] = []
        func add(_ filter: Compiled, _ verdict: String) {
            if trace.isEmpty, let shared = filter.sharedTrace(verdict) {
                trace = shared
                return
            }
            if trace.count == 1 { trace.reserveCapacity(filters.count) }
            trace.append(FilterTrace(name: filter.config.name, verdict: verdict))
        }
        var pending: [Pending] = []
        for filter in filters {
            let name = filter.config.name
            if let routes = filter.config.routes, !routes.contains(context.route) {
                add(filter, Self.skippedForRoute)
                continue
            }
            if context.madeByCondition, filter.config.hasMemory {
                add(filter, "skipped (a condition's own notification)")
                continue
            }
            if let when = filter.config.when, !when.isTrue(in: context) {
                add(filter, Self.skippedWhenFalse)
                continue
            }
            if shared != nil, let step = Self.step(filter.config, identity: filter.memoryIdentity, in: context) {
                // Decided with the message's other steps by the shared memory (`settle`).
                add(filter, Self.passed)
                var rateLimit = false
                if case .rateLimit = filter.config.action { rateLimit = true }
                pending.append(Pending(step: step, traceIndex: trace.count - 1, name: name, rateLimit: rateLimit))
                continue
            }
            let (newContent, verdict) = apply(filter, to: context)
            add(filter, verdict)
            if !newContent.hasAlertText {
                return Result(content: newContent, stoppedBy: name, trace: trace, pending: pending)
            }
            context.content = newContent
        }
        return Result(content: context.content, stoppedBy: nil, trace: trace, pending: pending)
    }

    /// A remembering filter's step for the shared memory (`nil` for the other actions).
    private static func step(_ config: FilterConfig, identity: String, in context: MessageContext) -> FilterMemoryStep? {
        let kind: FilterMemoryStep.Kind
        let key: Template
        switch config.action {
        case .dedupe(let k, let window): (key, kind) = (k, .window(window: window, max: 1))
        case .rateLimit(let k, let max, let window): (key, kind) = (k, .window(window: window, max: max))
        case .changed(let k, let value, let deadband, let initial):
            (key, kind) = (k, .changed(value: value.render(in: context), deadband: deadband, deliverFirst: initial == .deliver))
        case .suppress, .set, .quietHours: return nil
        }
        return FilterMemoryStep(filter: identity, key: key.render(in: context), kind: kind)
    }

    /// `result` with the shared memory's `answers` to its pending steps: each step's verdict in
    /// the trace; at the first step that stops the chain, the chain ends there (empty content,
    /// the trace up to it).
    static func settle(_ result: Result, answers: [FilterMemoryAnswer]) -> Result {
        var out = result
        out.pending = []
        for (index, pending) in result.pending.enumerated() {
            guard index < answers.count else { break }
            let answer = answers[index]
            let verdict: String
            switch answer {
            case .passed: verdict = passed
            case .refused: verdict = pending.rateLimit ? "suppressed (rate limit)" : "suppressed (duplicate)"
            case .changed: verdict = "passed (changed)"
            case .unchanged: verdict = "suppressed (unchanged)"
            case .first: verdict = answer.stops(pending.step.kind) ? "suppressed (first value)" : "passed (first value)"
            }
            out.trace[pending.traceIndex] = FilterTrace(name: pending.name, verdict: verdict)
            if answer.stops(pending.step.kind) {
                out.trace.removeSubrange((pending.traceIndex + 1)...)
                out.content = NotificationContent()
                out.stoppedBy = pending.name
                return out
            }
        }
        return out
    }

    private func apply(_ filter: Compiled, to context: MessageContext) -> (NotificationContent, String) {
        let empty = NotificationContent()
        if let suppressed = filter.suppresses(in: context) {
            return suppressed ? (empty, Self.suppressed) : (context.content, Self.passed)
        }
        switch filter.config.action {
        case .suppress(let condition):
            // Answered above (`suppresses(in:)`); the same evaluation, for the switch's sake.
            return condition.isTrue(in: context) ? (empty, "suppressed") : (context.content, "passed")
        case .set(let fields):
            return ContentSetter.apply(fields, to: context)
        case .dedupe(let key, let window):
            let admitted = filter.windows!.admit(key.render(in: context), now: clock.monotonic(), window: window, max: 1)
            return admitted ? (context.content, "passed") : (empty, "suppressed (duplicate)")
        case .rateLimit(let key, let max, let window):
            let admitted = filter.windows!.admit(key.render(in: context), now: clock.monotonic(), window: window, max: max)
            return admitted ? (context.content, "passed") : (empty, "suppressed (rate limit)")
        case .changed(let key, let value, let deadband, let initial):
            let verdict = filter.values!.observe(key.render(in: context), value: value.render(in: context),
                                                 deadband: deadband)
            switch verdict {
            case .changed: return (context.content, "passed (changed)")
            case .unchanged: return (empty, "suppressed (unchanged)")
            case .first:
                return initial == .deliver ? (context.content, "passed (first value)") : (empty, "suppressed (first value)")
            }
        case .quietHours(let from, let to, _, let unless):
            let hours = QuietHours(fromMinute: from, toMinute: to)
            guard hours.contains(unixSeconds: clock.wall(), in: filter.timeZone ?? context.timeZone) else {
                return (context.content, "passed")
            }
            if let unless, unless.isTrue(in: context) {
                return (context.content, "passed (quiet hours, unless true)")
            }
            return (empty, "suppressed (quiet hours)")
        }
    }
}
