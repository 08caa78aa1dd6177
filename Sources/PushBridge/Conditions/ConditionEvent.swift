/// What happened to a condition: its transitions, and the acknowledgements and snoozes that
/// stop its repeats. The raw value is the name the decision feed, Home Assistant's
/// `event_type` and `pushbridge try` show.
package enum ConditionEventKind: String, Sendable, CaseIterable {
    case raised, repeated, escalated, acknowledged, snoozed, cleared

    /// The event of a transition to `state`.
    init(_ state: ConditionState) {
        switch state {
        case .raised: self = .raised
        case .repeated: self = .repeated
        case .escalated: self = .escalated
        case .cleared: self = .cleared
        // A superseded condition makes no event (nothing is told): never asked for.
        case .superseded: self = .raised
        }
    }
}

/// What a condition did, for the decision feed and Home Assistant. A class: a decision
/// carries one reference, so decisions of routes without conditions stay as small as before.
package final class ConditionEvent: Sendable {
    package let kind: ConditionEventKind
    package let record: ConditionRecord
    let collapseID: String
    /// The withdraw message's value, when the condition cleared.
    package let withdrawal: Withdrawal?

    init(kind: ConditionEventKind, record: ConditionRecord, collapseID: String, withdrawal: Withdrawal? = nil) {
        self.kind = kind
        self.record = record
        self.collapseID = collapseID
        self.withdrawal = withdrawal
    }
}
