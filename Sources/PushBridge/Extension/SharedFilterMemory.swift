/// One remembering filter's step (`dedupe`, `rate_limit`, `changed`) for a message, as a
/// shared memory decides it: the chain computes the key and value in order, the memory
/// decides every step of the message together.
package struct FilterMemoryStep: Sendable, Equatable {
    /// What the step asks.
    enum Kind: Sendable, Equatable {
        /// `dedupe` (max 1) and `rate_limit`: let it through when fewer than `max` hits lie
        /// within `window`, and record it.
        case window(window: Duration, max: Int)
        /// `changed`: compare `value` with the one recorded and record it (within `deadband`:
        /// not recorded); `deliverFirst`: `initial: deliver`.
        case changed(value: String, deadband: Double, deliverFirst: Bool)
        /// Retained state teaching a `changed` filter its value: recorded, nothing decided.
        case teach(value: String)
    }

    /// The filter's memory identity (its name and definition).
    var filter: String
    var key: String
    var kind: Kind
}

/// What a shared memory answered for a step it applied.
package enum FilterMemoryAnswer: Character, Sendable, Equatable {
    /// `dedupe` / `rate_limit`: let through (and recorded).
    case passed = "p"
    /// `dedupe` / `rate_limit`: refused (nothing recorded).
    case refused = "r"
    /// `changed`: the value changed.
    case changed = "c"
    /// `changed`: the key had no value.
    case first = "f"
    /// `changed`: the value did not change.
    case unchanged = "u"

    /// Whether the step stops the chain (the message is suppressed by it).
    func stops(_ kind: FilterMemoryStep.Kind) -> Bool {
        switch self {
        case .refused, .unchanged: true
        case .first: if case .changed(_, _, let deliverFirst) = kind { !deliverFirst } else { false }
        case .passed, .changed: false
        }
    }
}

/// The remembering filters' memory when it is kept outside the process (`state.redis`), so
/// that replicas decide as one: a message's steps are decided together and atomically, in
/// order, stopping at the first that stops the chain; and once — a message decided again
/// under the same `once` key (a replay after a crash) gets the answers it got the first time.
package protocol SharedFilterMemory: Sendable {
    /// Decides `steps`; `completion` gets one answer per step applied (fewer than `steps`
    /// when one stopped the chain), exactly once, from any thread. While the memory cannot
    /// be reached it waits (the message waits with it, in its journal).
    func decide(_ steps: [FilterMemoryStep], once: String, completion: @escaping @Sendable ([FilterMemoryAnswer]) -> Void)

    /// Records `steps` (`teach` steps), deciding nothing; in order with the decisions.
    func teach(_ steps: [FilterMemoryStep])
}
