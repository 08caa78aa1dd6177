/// One route's condition counters (stats `routes.<r>.conditions`, `/metrics`).
public struct ConditionCounts: Sendable, Equatable {
    public var active = 0
    public var raised = 0
    public var repeated = 0
    public var escalated = 0
    public var acknowledged = 0
    public var cleared = 0
    /// Conditions forgotten because the route had `max_active` ones.
    public var evicted = 0

    public init() {}

    /// The transition counters by name, in the documented order.
    public var transitions: [(state: String, count: Int)] {
        [("raised", raised), ("repeated", repeated), ("escalated", escalated),
         ("acknowledged", acknowledged), ("cleared", cleared)]
    }
}

/// What a condition did, for the decision feed and Home Assistant. A class: a decision
/// carries one reference, so decisions of routes without conditions stay as small as before.
public final class ConditionEvent: Sendable {
    /// `raised`, `repeated`, `escalated`, `acknowledged`, `snoozed` or `cleared`.
    public let kind: String
    public let record: ConditionRecord
    public let collapseID: String
    /// The withdraw message's value, when the condition cleared.
    public let withdrawal: Withdrawal?

    public init(kind: String, record: ConditionRecord, collapseID: String, withdrawal: Withdrawal? = nil) {
        self.kind = kind
        self.record = record
        self.collapseID = collapseID
        self.withdrawal = withdrawal
    }
}
