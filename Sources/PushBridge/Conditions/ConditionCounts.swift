/// One route's condition counters (stats `routes.<r>.conditions`, `/metrics`).
package struct ConditionCounts: Sendable, Equatable {
    var active = 0
    var raised = 0
    package var repeated = 0
    package var escalated = 0
    package var acknowledged = 0
    var cleared = 0
    /// Raised silently while the condition they depend on was raised (`depends_on`).
    var superseded = 0
    /// Conditions forgotten because the route had `max_active` ones.
    var evicted = 0

    init() {}

    /// The transition counters by name, in the documented order.
    var transitions: [(state: String, count: Int)] {
        [("raised", raised), ("repeated", repeated), ("escalated", escalated),
         ("acknowledged", acknowledged), ("cleared", cleared), ("superseded", superseded)]
    }
}
