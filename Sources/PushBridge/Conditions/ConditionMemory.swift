import Foundation

/// The engine's memory in the journal: every condition stored as it changes, and read back
/// at start (after a restart or a SIGKILL nothing is raised twice, repeats resume on schedule).
extension ConditionEngine {
    /// Reads the stored conditions of the configured routes (call after `configure`); a
    /// superseded one whose parent is not raised any more is announced at `now`.
    func restore(now: Double = Date().timeIntervalSince1970) {
        guard let journal else { return }
        do {
            let rows = try journal.loadConditions()
            let (restored, promoted) = state.withLock { s -> (Int, [ConditionRecord]) in
                var n = 0
                for row in rows {
                    guard s.configs[row.route] != nil, let r = ConditionRecord(route: row.route, key: row.key, stored: row.value) else { continue }
                    let id = Self.id(r.route, r.key)
                    s.records[id] = r
                    s.byAlertID[r.alertID] = id
                    s.counts[r.route, default: ConditionCounts()].active += 1
                    Self.schedule(r, in: &s)
                    n += 1
                }
                let promoted = Self.settleOrphans(now: now, in: &s)
                return (n, promoted)
            }
            for r in promoted { persist(r, removed: false) }
            if restored > 0 { logger.info("conditions: \(restored) active condition(s) restored from the journal") }
        } catch {
            logger.error("conditions: cannot read the journal's conditions: \(error)")
        }
    }

    /// Stores `r` (or forgets it, `removed`) in the journal, when there is one, and what
    /// changed in it in the shared memory (`state.redis`; a removal there is the clear's own).
    func persist(_ r: ConditionRecord, removed: Bool) {
        if !removed { shared?.save(r) }
        persistLocally(r, removed: removed)
    }

    /// Stores `r` (or forgets it, `removed`) in the journal alone.
    func persistLocally(_ r: ConditionRecord, removed: Bool) {
        guard let journal else { return }
        do {
            try journal.saveCondition(route: r.route, key: r.key, value: removed ? nil : r.stored)
        } catch {
            logger.error("conditions: cannot store '\(r.route)' '\(r.key)' in the journal: \(error)")
        }
    }
}
