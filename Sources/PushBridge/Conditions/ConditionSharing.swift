import Foundation

/// The engine with a shared memory (`state.redis`): a message's transition is decided there
/// and adopted here; the copy here is brought up to date with it every second (`reconcile`).
extension ConditionEngine {
    /// The record a raise of `key` would store now (what `observe` makes), proposed to the shared memory.
    func proposal(route: String, key: String, message: InboundMessage, alertID: String, now: Double,
                  dependsKey: String?) -> ConditionRecord {
        state.withLock { s in
            Self.newRecord(route: route, key: key, alertID: alertID, message: message, now: now, config: s.configs[route],
                           dependsKey: dependsKey, in: s)
        }
    }

    /// Applies the shared memory's `answer` for a message here and returns the transition to tell.
    func adopt(_ answer: SharedConditionAnswer, route: String, key: String, message: InboundMessage, now: Double,
               dependsKey: String?) -> Transition {
        let id = Self.id(route, key)
        switch answer {
        case .raised(let r):
            // Ours: raised here as it was proposed (a replay raises the alert it raised the first time).
            if let local = state.withLock({ $0.records[id] }), local.alertID == r.alertID {
                return local.state == .superseded ? .superseded(local) : .raised(local)
            }
            forget(id)
            return observe(route: route, key: key, active: true, message: message, alertID: r.alertID, now: r.raisedAt,
                           dependsKey: dependsKey)
        case .alreadyRaised(let shared):
            let r = take(shared.record)
            return .alreadyRaised(r)
        case .cleared(let shared):
            _ = take(shared.record)
            return observe(route: route, key: key, active: false, message: message, alertID: shared.record.alertID, now: now)
        case .notRaised:
            forget(id)
            return .notRaised
        }
    }

    /// Brings the copy here up to date with the shared memory's `conditions` (of the
    /// configured routes): new ones are taken (with their schedule), ones gone for more than
    /// `grace` seconds are forgotten (cleared elsewhere), merged fields are taken.
    func reconcile(_ conditions: [SharedCondition], now: Double, grace: Double = 5) {
        let shared = Dictionary(conditions.map { (Self.id($0.record.route, $0.record.key), $0.record) }, uniquingKeysWith: { a, _ in a })
        let local = state.withLock { $0.records }
        for (id, r) in shared where local[id]?.alertID != r.alertID || differs(local[id]!, r) {
            _ = take(r)
        }
        for (id, r) in local where shared[id] == nil && now - r.raisedAt > grace {
            forget(id)
        }
    }

    /// Whether the merged fields of `shared` say more than `local` does.
    private func differs(_ local: ConditionRecord, _ shared: ConditionRecord) -> Bool {
        (shared.acknowledged && !local.acknowledged) || shared.repeats > local.repeats || shared.step > local.step
            || (shared.snoozedUntil ?? 0) > (local.snoozedUntil ?? 0)
    }

    /// Takes `shared` into the copy here (a new condition, or newer fields of a known one)
    /// and schedules it; returns the record as kept.
    @discardableResult
    func take(_ shared: ConditionRecord) -> ConditionRecord {
        let id = Self.id(shared.route, shared.key)
        let kept: ConditionRecord? = state.withLock { s in
            guard s.configs[shared.route] != nil else { return nil }
            var r = shared
            if let local = s.records[id], local.alertID == shared.alertID {
                r = local
                if shared.acknowledged && !r.acknowledged {
                    r.acknowledged = true
                    r.acknowledgedBy = shared.acknowledgedBy
                    r.snoozedUntil = nil
                    s.counts[r.route, default: ConditionCounts()].acknowledged += 1
                }
                r.repeats = max(r.repeats, shared.repeats)
                r.step = max(r.step, shared.step)
                if let until = shared.snoozedUntil, until > (r.snoozedUntil ?? 0), !r.acknowledged { r.snoozedUntil = until }
                if r.repeats > 0, r.state == .raised { r.state = .repeated }
            } else {
                if s.records[id] != nil { Self.remove(id, from: &s) }
                s.byAlertID[r.alertID] = id
                s.counts[r.route, default: ConditionCounts()].active += 1
            }
            s.records[id] = r
            Self.schedule(r, in: &s)
            return r
        }
        if let kept { persistLocally(kept, removed: false) }
        return kept ?? shared
    }

    /// Forgets the condition `id` here without telling anything (it is gone from the shared memory).
    func forget(_ id: String) {
        let gone: ConditionRecord? = state.withLock { s in
            guard let r = s.records[id] else { return nil }
            Self.remove(id, from: &s)
            return r
        }
        if let gone { persistLocally(gone, removed: true) }
    }

    /// The token that claims `work` for one replica.
    static func claimToken(_ work: Work) -> String {
        switch work.kind {
        case .repeat(let n): "\(work.record.alertID):repeat:\(n)"
        case .step(let n): "\(work.record.alertID):step:\(n)"
        case .announcement(let parent): "\(work.record.alertID):announcement:\(parent)"
        }
    }
}
