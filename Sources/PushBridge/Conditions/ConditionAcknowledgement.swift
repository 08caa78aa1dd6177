/// An acknowledgement or snooze applied to the engine's conditions.
extension ConditionEngine {
    /// Acknowledges or snoozes; `nil` when no active condition matches (counted, logged at
    /// debug) or the condition was acknowledged already (a repeated answer changes nothing).
    func acknowledge(_ ack: Acknowledgement, now: Double) -> ConditionRecord? {
        let r: ConditionRecord? = state.withLock { s in
            let id = ack.alertID.flatMap { s.byAlertID[$0] } ?? ack.route.flatMap { route in ack.key.map { Self.id(route, $0) } }
            guard let id, var r = s.records[id], ack.alertID == nil || ack.alertID == r.alertID else {
                s.acknowledgements.unknown += 1
                return nil
            }
            // Already acknowledged (several answers to one alert): nothing changes, nothing is told.
            if r.acknowledged && ack.snooze == nil { return nil }
            if let snooze = ack.snooze {
                r.snoozedUntil = now + snooze.seconds
                r.acknowledgedBy = ack.by ?? r.acknowledgedBy
            } else if !r.acknowledged {
                r.acknowledged = true
                r.acknowledgedBy = ack.by ?? ""
                r.snoozedUntil = nil
                s.counts[r.route, default: ConditionCounts()].acknowledged += 1
            }
            s.records[id] = r
            Self.schedule(r, in: &s)
            return r
        }
        if let r { persist(r, removed: false) } else {
            logger.debug("conditions: acknowledgement for no active, unacknowledged condition (\(ack.alertID ?? "\(ack.route ?? "")/\(ack.key ?? "")"))")
        }
        return r
    }
}
