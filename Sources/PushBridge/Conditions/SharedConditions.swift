/// A condition as the shared memory holds it: the record as last written, with the fields
/// that only ever grow merged from every replica's writes (an acknowledgement is never
/// undone by a replica that had not seen it; repeats and steps count the most any replica sent).
package struct SharedCondition: Sendable {
    package var record: ConditionRecord

    /// `record` with the merged fields applied.
    init(record: ConditionRecord, acknowledged: Bool, acknowledgedBy: String?, repeats: Int, step: Int, snoozedUntil: Double?) {
        var r = record
        if acknowledged, !r.acknowledged {
            r.acknowledged = true
            r.acknowledgedBy = acknowledgedBy
            r.snoozedUntil = nil
        }
        r.repeats = max(r.repeats, repeats)
        r.step = max(r.step, step)
        if let until = snoozedUntil, until > (r.snoozedUntil ?? 0), !r.acknowledged { r.snoozedUntil = until }
        self.record = r
    }
}

/// What the shared memory answered for a message on a condition route.
package enum SharedConditionAnswer: Sendable {
    /// No condition was raised for the key: the one proposed is now (this replica raised it).
    case raised(ConditionRecord)
    /// One is raised already (by any replica): this one.
    case alreadyRaised(SharedCondition)
    /// The raised one is cleared (and gone from the shared memory).
    case cleared(SharedCondition)
    /// Nothing raised, nothing to clear.
    case notRaised
}

/// The conditions' memory when replicas share it (`state.redis`): each transition of a key is
/// decided atomically against the shared memory (two replicas cannot both raise it), each
/// due repeat or step is claimed by one replica, and every replica keeps a copy that it
/// brings up to date (`ConditionEngine.reconcile`) so that its timer knows every condition.
package protocol SharedConditions: Sendable {
    /// Raises `proposed` when `active` and none is raised for its route and key, or clears the
    /// raised one when not `active`; once per `once` key (a replay gets the first answer).
    /// `completion` runs once, from any thread; while the memory cannot be reached it waits.
    func observe(route: String, key: String, active: Bool, proposed: ConditionRecord, once: String,
                 completion: @escaping @Sendable (SharedConditionAnswer) -> Void)

    /// Stores what changed in `record` (repeats, steps, acknowledgement, snooze), merged with
    /// what the other replicas stored; nothing when the shared condition is another alert or gone.
    func save(_ record: ConditionRecord)

    /// Claims the notification `token` (a repeat or a step of one alert) for this replica:
    /// `true` for exactly one replica; `false` for the others, and while the memory cannot be
    /// reached (the work is tried again on schedule).
    func claim(_ token: String) -> Bool

    /// Every shared condition now, or `nil` when the memory cannot be reached.
    func all() -> [SharedCondition]?
}
