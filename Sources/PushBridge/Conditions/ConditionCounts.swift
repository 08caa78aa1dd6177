/// One route's condition counters (stats `routes.<r>.conditions`, `/metrics`).
package struct ConditionCounts: Sendable, Equatable {
    package var active = 0
    package var raised = 0
    package var repeated = 0
    package var escalated = 0
    package var acknowledged = 0
    package var cleared = 0
    /// Conditions forgotten because the route had `max_active` ones.
    package var evicted = 0

    package init() {}

    /// The transition counters by name, in the documented order.
    package var transitions: [(state: String, count: Int)] {
        [("raised", raised), ("repeated", repeated), ("escalated", escalated),
         ("acknowledged", acknowledged), ("cleared", cleared)]
    }
}

/// What a condition did, for the decision feed and Home Assistant. A class: a decision
/// carries one reference, so decisions of routes without conditions stay as small as before.
package final class ConditionEvent: Sendable {
    /// `raised`, `repeated`, `escalated`, `acknowledged`, `snoozed` or `cleared`.
    package let kind: String
    package let record: ConditionRecord
    package let collapseID: String
    /// The withdraw message's value, when the condition cleared.
    package let withdrawal: Withdrawal?

    package init(kind: String, record: ConditionRecord, collapseID: String, withdrawal: Withdrawal? = nil) {
        self.kind = kind
        self.record = record
        self.collapseID = collapseID
        self.withdrawal = withdrawal
    }
}
