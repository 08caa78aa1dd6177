/// `depends_on` inside the engine's lock: a dependent's superseded conditions become
/// ordinary ones, announced together, once the condition they depend on is gone.
extension ConditionEngine {
    /// Whether `route` has a raised condition (superseded ones included): the one of `key`,
    /// or (`key` nil) any.
    static func isRaised(_ route: String, key: String?, in s: State) -> Bool {
        if let key { return s.records[id(route, key)] != nil }
        return (s.counts[route]?.active ?? 0) > 0
    }

    /// After a condition of `route` went away: its dependents' superseded conditions whose
    /// parent is no longer raised become ordinary ones, announced together.
    static func settle(after route: String, now: Double, in s: inout State) -> [ConditionRecord] {
        guard s.configs.values.contains(where: { $0.dependsOn == route }) else { return [] }
        return promote(now: now, in: &s) { r, s in r.supersededBy == route && !isRaised(route, key: r.parentKey, in: s) }
    }

    /// Superseded conditions whose parent is not raised, or no longer their route's
    /// `depends_on` (a reload, a restart after a crash between two writes).
    static func settleOrphans(now: Double, in s: inout State) -> [ConditionRecord] {
        promote(now: now, in: &s) { r, s in
            guard let parent = r.supersededBy, s.configs[r.route]?.dependsOn == parent, s.configs[parent] != nil else { return true }
            return !isRaised(parent, key: r.parentKey, in: s)
        }
    }

    /// Makes the superseded conditions `chosen` picks ordinary raised ones, whose repeats and
    /// steps count from `now`, and queues one announcement per route and parent.
    static func promote(now: Double, in s: inout State,
                                where chosen: (ConditionRecord, State) -> Bool) -> [ConditionRecord] {
        let picked = s.records.values.filter { $0.state == .superseded && chosen($0, s) }
        guard !picked.isEmpty else { return [] }
        var groups: [String: [ConditionRecord]] = [:]
        for var r in picked {
            r.state = .raised
            r.announcedAt = now
            r.nextRepeatAt = s.configs[r.route]?.repeatEvery.map { now + $0.seconds }
            s.records[id(r.route, r.key)] = r
            schedule(r, in: &s)
            groups[id(r.route, r.supersededBy ?? ""), default: []].append(r)
        }
        for group in groups.keys.sorted() {
            let records = groups[group]!.sorted { ($0.raisedAt, $0.key) < ($1.raisedAt, $1.key) }
            let parent = records[0].supersededBy ?? ""
            s.announcements.append((now, Work(kind: .announcement(parent: parent), record: records[0], dependents: records)))
        }
        return groups.values.flatMap { $0 }
    }
}
