import Foundation
import Synchronization

/// The alert lifecycle's state machine: every condition per route and key, and the one
/// schedule of their repeats and escalation steps (a heap of due times; the caller arms
/// one timer for `nextDue`). Time is always passed in (UNIX seconds), so tests drive it
/// with a fake clock. With a journal every change is stored and `restore` reads it back.
package final class ConditionEngine: Sendable {
    /// What a message on a condition route did.
    enum Transition: Sendable {
        case raised(ConditionRecord)
        case cleared(ConditionRecord)
        /// Active while raised: state, not an event.
        case alreadyRaised(ConditionRecord)
        /// Inactive for a key that is not raised.
        case notRaised
        /// Raised silently: a condition of the route it depends on (`depends_on`) is raised.
        case superseded(ConditionRecord)
        /// A superseded condition cleared: nothing was told, so nothing is withdrawn.
        case clearedSilently(ConditionRecord)
    }

    /// A notification the schedule asks for now.
    package struct Work: Sendable {
        package enum Kind: Sendable, Equatable {
            /// The repeat with this number (1 for the first).
            case `repeat`(Int)
            /// The escalation step with this number (1 for the first).
            case step(Int)
            /// The route's conditions that were superseded while a condition of `parent`
            /// was raised and are still active now that it cleared: one notification for all.
            case announcement(parent: String)
        }
        package var kind: Kind
        /// The condition it is about (for an announcement, the oldest of `dependents`).
        package var record: ConditionRecord
        /// An announcement's conditions, oldest first (empty for the other kinds).
        var dependents: [ConditionRecord] = []
    }

    struct State {
        var records: [String: ConditionRecord] = [:]
        var generations: [String: UInt64] = [:]
        var byAlertID: [String: String] = [:]
        var heap = DueHeap()
        var generation: UInt64 = 0
        var counts: [String: ConditionCounts] = [:]
        var configs: [String: ConditionConfig] = [:]
        var acknowledgements = AcknowledgementCounts()
        /// Announcements of conditions no longer superseded, due at the time their parent cleared.
        var announcements: [(at: Double, work: Work)] = []
        var rejectionWarnings = WarningThrottle(interval: ConditionEngine.rejectionWarningInterval)
    }

    let state = Mutex(State())
    let journal: Journal?
    let logger: BridgeLogger
    /// The memory the replicas share (`state.redis`); `nil`: this process's (and its journal's).
    let shared: (any SharedConditions)?

    package init(journal: Journal? = nil, logger: BridgeLogger, shared: (any SharedConditions)? = nil) {
        self.journal = journal
        self.logger = logger
        self.shared = shared
    }

    static func id(_ route: String, _ key: String) -> String { route + "\u{1F}" + key }

    /// The condition routes of the current config (a reload passes the new ones); the
    /// conditions of routes that are gone are forgotten.
    /// A superseded condition whose parent is gone from the config, or no longer its
    /// `depends_on`, is announced at `now` (UNIX seconds) as if the parent had cleared.
    func configure(_ routes: [RouteConfig], now: Double = Date().timeIntervalSince1970) {
        let (gone, promoted): ([ConditionRecord], [ConditionRecord]) = state.withLock { s in
            s.configs = [:]
            for r in routes { if let c = r.condition { s.configs[r.name] = c } }
            let gone = s.records.values.filter { s.configs[$0.route] == nil }
            for r in gone { Self.remove(Self.id(r.route, r.key), from: &s) }
            for r in s.records.values { Self.schedule(r, in: &s) }
            return (Array(gone), Self.settleOrphans(now: now, in: &s))
        }
        for r in gone { persist(r, removed: true) }
        for r in promoted { persist(r, removed: false) }
    }

    /// A message whose `active` evaluated to `active` for `key` on `route`.
    /// `dependsKey` is the route's `depends_key` rendered for `message` (`nil` without one).
    func observe(route: String, key: String, active: Bool, message: InboundMessage, alertID: String,
                 now: Double, dependsKey: String? = nil) -> Transition {
        let id = Self.id(route, key)
        var evicted: ConditionRecord?
        var promoted: [ConditionRecord] = []
        let t: Transition = state.withLock { s in
            if let existing = s.records[id] {
                guard !active else { return .alreadyRaised(existing) }
                Self.remove(id, from: &s)
                s.counts[route, default: ConditionCounts()].cleared += 1
                var cleared = existing
                cleared.state = .cleared
                promoted = Self.settle(after: route, now: now, in: &s)
                return existing.state == .superseded ? .clearedSilently(cleared) : .cleared(cleared)
            }
            guard active, let config = s.configs[route] else { return .notRaised }
            if s.counts[route, default: ConditionCounts()].active >= config.maxActive,
               let oldest = s.records.values.filter({ $0.route == route }).min(by: { $0.raisedAt < $1.raisedAt }) {
                Self.remove(Self.id(oldest.route, oldest.key), from: &s)
                let n = s.counts[route, default: ConditionCounts()].evicted + 1
                s.counts[route]!.evicted = n
                evicted = oldest
                promoted = Self.settle(after: route, now: now, in: &s)
            }
            let r = Self.newRecord(route: route, key: key, alertID: alertID, message: message, now: now, config: config,
                                   dependsKey: dependsKey, in: s)
            s.records[id] = r
            s.byAlertID[alertID] = id
            s.counts[route, default: ConditionCounts()].active += 1
            if r.state == .superseded { s.counts[route]!.superseded += 1 } else { s.counts[route]!.raised += 1 }
            Self.schedule(r, in: &s)
            return r.state == .superseded ? .superseded(r) : .raised(r)
        }
        for r in promoted { persist(r, removed: false) }
        if let evicted {
            persist(evicted, removed: true)
            logger.warning("route '\(route)': max_active conditions reached; forgot the oldest, '\(evicted.key)'")
        }
        switch t {
        case .raised(let r), .superseded(let r): persist(r, removed: false)
        case .cleared(let r), .clearedSilently(let r): persist(r, removed: true)
        case .alreadyRaised, .notRaised: break
        }
        return t
    }

    /// The notifications due at `now`: at most one per condition (a step before a repeat;
    /// a step moves the next repeat to `repeat.every` after it).
    package func due(now: Double) -> [Work] {
        let work: [Work] = state.withLock { s in
            var out: [Work] = []
            // Announcements first: those of their conditions that cleared since say nothing.
            while let first = s.announcements.first, first.at <= now {
                s.announcements.removeFirst()
                var w = first.work
                w.dependents = w.dependents.filter { s.records[Self.id($0.route, $0.key)]?.alertID == $0.alertID }
                guard let oldest = w.dependents.first else { continue }
                w.record = oldest
                out.append(w)
            }
            while let top = s.heap.top, top.due <= now {
                _ = s.heap.pop()
                guard s.generations[top.id] == top.generation, var r = s.records[top.id],
                      let config = s.configs[r.route], !r.acknowledged else { continue }
                if let until = r.snoozedUntil {
                    if until > now { Self.schedule(r, in: &s); continue }
                    r.snoozedUntil = nil
                }
                if r.step < config.escalate.count, r.scheduleBase + config.escalate[r.step].after.seconds <= now {
                    r.step += 1
                    r.state = .escalated
                    // The step is itself a reminder: the next repeat counts from it.
                    if r.nextRepeatAt != nil, let every = config.repeatEvery { r.nextRepeatAt = now + every.seconds }
                    s.counts[r.route, default: ConditionCounts()].escalated += 1
                    out.append(Work(kind: .step(r.step), record: r))
                } else if let next = r.nextRepeatAt, next <= now, let every = config.repeatEvery {
                    // Counted when delivered (`repeatFinished`); tried again on schedule either way.
                    r.nextRepeatAt = now + every.seconds
                    out.append(Work(kind: .repeat(r.repeats + 1), record: r))
                }
                s.records[top.id] = r
                Self.schedule(r, in: &s)
            }
            if s.heap.count > 4 * max(64, s.records.count) {
                let generations = s.generations
                s.heap.compact { generations[$0.id] == $0.generation }
            }
            return out
        }
        for w in work {
            if case .announcement = w.kind { continue }  // its conditions were stored when promoted
            persist(w.record, removed: false)
        }
        return work
    }

    /// A repeat's notification was decided: only a delivered one counts toward `count`.
    package func repeatFinished(route: String, key: String, alertID: String, delivered: Bool) {
        guard delivered else { return }
        let id = Self.id(route, key)
        let r: ConditionRecord? = state.withLock { s in
            guard var r = s.records[id], r.alertID == alertID else { return nil }
            r.repeats += 1
            r.state = .repeated
            s.counts[route, default: ConditionCounts()].repeated += 1
            if let count = s.configs[route]?.repeatCount, r.repeats >= count { r.nextRepeatAt = nil }
            s.records[id] = r
            Self.schedule(r, in: &s)
            return r
        }
        if let r { persist(r, removed: false) }
    }

    /// Remembers `text` as the Live Activity content state last sent for the condition;
    /// `false` (nothing changes) when it is what was sent last, or the alert is gone.
    func replaceLiveContentState(route: String, key: String, alertID: String, with text: String) -> Bool {
        let id = Self.id(route, key)
        return state.withLock { s in
            guard var r = s.records[id], r.alertID == alertID, r.liveContentState != text else { return false }
            r.liveContentState = text
            s.records[id] = r
            return true
        }
    }

    /// When the earliest repeat or step is due (UNIX seconds), if any.
    package var nextDue: Double? {
        state.withLock { s in
            while let top = s.heap.top, s.generations[top.id] != top.generation { _ = s.heap.pop() }
            guard let announced = s.announcements.first?.at else { return s.heap.top?.due }
            return min(announced, s.heap.top?.due ?? announced)
        }
    }

    /// The active conditions, oldest first.
    var active: [ConditionRecord] {
        state.withLock { Array($0.records.values) }.sorted { ($0.raisedAt, $0.route, $0.key) < ($1.raisedAt, $1.route, $1.key) }
    }

    /// The counters per condition route.
    package var counts: [String: ConditionCounts] {
        state.withLock { s in
            var out = s.counts
            for route in s.configs.keys where out[route] == nil { out[route] = ConditionCounts() }
            return out
        }
    }

    // MARK: - Inside the lock

    /// The record a raise of `key` makes now: superseded (silent: no repeat, no step until the
    /// parent clears) when the condition of `depends_on` is raised, else due to repeat (without
    /// `config`, a route no longer configured: neither).
    static func newRecord(route: String, key: String, alertID: String, message: InboundMessage, now: Double,
                          config: ConditionConfig?, dependsKey: String?, in s: State) -> ConditionRecord {
        var r = ConditionRecord(route: route, key: key, alertID: alertID, raisedAt: now, topic: message.topic,
                                payload: message.payload)
        r.properties = message.userProperties
        r.qos = message.qos
        guard let config else { return r }
        if let parent = config.dependsOn, isRaised(parent, key: dependsKey, in: s) {
            r.state = .superseded
            r.supersededBy = parent
            r.parentKey = dependsKey
        } else {
            r.nextRepeatAt = config.repeatEvery.map { now + $0.seconds }
        }
        return r
    }

    static func remove(_ id: String, from s: inout State) {
        guard let r = s.records.removeValue(forKey: id) else { return }
        s.generations.removeValue(forKey: id)
        s.byAlertID.removeValue(forKey: r.alertID)
        s.counts[r.route, default: ConditionCounts()].active -= 1
    }

    /// Pushes the condition's next due time (a new generation makes older entries stale).
    static func schedule(_ r: ConditionRecord, in s: inout State) {
        let id = id(r.route, r.key)
        s.generation += 1
        s.generations[id] = s.generation
        guard !r.acknowledged, r.state != .superseded, let config = s.configs[r.route] else { return }
        var due = r.nextRepeatAt
        if r.step < config.escalate.count {
            let stepAt = r.scheduleBase + config.escalate[r.step].after.seconds
            due = min(due ?? stepAt, stepAt)
        }
        guard var at = due else { return }
        if let until = r.snoozedUntil { at = max(at, until) }
        s.heap.push(DueHeap.Entry(due: at, id: id, generation: s.generation))
    }
}
