/// What arrived on `conditions.ack_topic` and changed nothing (stats `conditions`, `/metrics`).
struct AcknowledgementCounts: Sendable, Equatable {
    /// Acknowledgements of no active condition: already cleared, never raised, or naming a
    /// route and key that hold none. Logged at debug, never an error.
    var unknown = 0
    /// Payloads that are not acknowledgements (not JSON, neither form, a bad `snooze`):
    /// warned about at most once a minute and dead-lettered as `BadAcknowledgement`.
    var rejected = 0

    init(unknown: Int = 0, rejected: Int = 0) {
        self.unknown = unknown
        self.rejected = rejected
    }
}

extension ConditionEngine {
    /// Seconds between two warnings about rejected acknowledgements.
    static let rejectionWarningInterval = 60.0

    /// Counts a payload on the ack topic that is not an acknowledgement; when a warning is due
    /// at `now` (at most one a minute), the number of rejections since the last warning that
    /// were not warned about (0 for the first), else `nil`.
    func rejectAcknowledgement(now: Double) -> Int? {
        state.withLock { s in
            s.acknowledgements.rejected += 1
            return s.rejectionWarnings.note(now: now)
        }
    }

    /// The ack topic's counters; `nil` while no route is a condition route and nothing arrived.
    var acknowledgementCounts: AcknowledgementCounts? {
        state.withLock { s in
            s.configs.isEmpty && s.acknowledgements == AcknowledgementCounts() ? nil : s.acknowledgements
        }
    }
}
