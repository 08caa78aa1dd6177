/// One set of the stats counters (docs/metrics.md): for a topic, a route, or the totals.
///
/// Invariant: `received == delivered + suppressed + notDisplayed
/// + rejected + expired + unrouted + inFlight`. `modified`, `timeout`,
/// `extensionFailed`, `loopDropped` and `partitionSkipped` are side counters outside that sum.
package struct Counters: Sendable, Equatable {
    /// Messages that arrived (for routes: that finished; see `Stats`).
    package var received = 0
    /// Published to the display topic.
    package var delivered = 0
    /// Silenced by a filter or the extension (filtering entitlement).
    package var suppressed = 0
    /// Not an alert, or no alert text: nothing published.
    var notDisplayed = 0
    /// Could not be built or failed APNs validation.
    package var rejected = 0
    /// Past its expiration time when processed.
    var expired = 0
    /// No route matched the topic.
    var unrouted = 0
    /// Delivered with content the extension stage changed.
    package var modified = 0
    /// The extension stage ran out of time (the original was delivered).
    package var timeout = 0
    /// The extension failed (the original was delivered or dropped).
    package var extensionFailed = 0
    /// Messages carrying the bridge's own hop property, dropped before the pipeline
    /// (not counted as received; see `Stats.loopDropped(topic:)`).
    var loopDropped = 0
    /// Messages on topics another partition handles, dropped before the pipeline (not
    /// counted as received; totals only, see `Stats.partitionSkipped()`).
    var partitionSkipped = 0
    /// Received and not yet finished. Always 0 for routes (counted at finish).
    package var inFlight = 0
    /// Rejection reason (`RejectReason` raw value) to count.
    package var rejectedByReason: [String: Int] = [:]
    /// Attachments not attached, by reason (`UnsupportedType`, `Empty`, `TooLarge`, `FetchFailed`).
    package var attachmentFailures: [String: Int] = [:]

    /// All zero counters.
    package init() {}

    /// The counter `counter`. Setting a counter stores its value; nothing else changes.
    package subscript(counter: StatsCounter) -> Int {
        get {
            switch counter {
            case .received: received
            case .delivered: delivered
            case .suppressed: suppressed
            case .notDisplayed: notDisplayed
            case .rejected: rejected
            case .expired: expired
            case .unrouted: unrouted
            case .modified: modified
            case .timeout: timeout
            case .extensionFailed: extensionFailed
            case .loopDropped: loopDropped
            case .partitionSkipped: partitionSkipped
            case .inFlight: inFlight
            }
        }
        set {
            switch counter {
            case .received: received = newValue
            case .delivered: delivered = newValue
            case .suppressed: suppressed = newValue
            case .notDisplayed: notDisplayed = newValue
            case .rejected: rejected = newValue
            case .expired: expired = newValue
            case .unrouted: unrouted = newValue
            case .modified: modified = newValue
            case .timeout: timeout = newValue
            case .extensionFailed: extensionFailed = newValue
            case .loopDropped: loopDropped = newValue
            case .partitionSkipped: partitionSkipped = newValue
            case .inFlight: inFlight = newValue
            }
        }
    }

    /// The count of messages that ended in `outcome`.
    package subscript(outcome: Outcome) -> Int {
        get { self[outcome.counter] }
        set { self[outcome.counter] = newValue }
    }

    /// Messages that reached an outcome.
    var finished: Int { delivered + suppressed + notDisplayed + rejected + expired + unrouted }

    /// `true` when every counter is zero and no reason was counted.
    var isZero: Bool { self == Counters() }

    /// Counts one finished message: its outcome, the side counters, the reason; lowers `inFlight`.
    mutating func count(_ decision: Decision, finishing: Bool) {
        self[decision.outcome] += 1
        if decision.modified { modified += 1 }
        if decision.timedOut { timeout += 1 }
        if decision.extensionFailed { extensionFailed += 1 }
        if decision.outcome == .rejected {
            rejectedByReason[decision.rejection?.reason.rawValue ?? Counters.unknownReason, default: 0] += 1
        }
        for a in decision.attachments {
            if let failure = a.failure { attachmentFailures[failure.rawValue, default: 0] += 1 }
        }
        if finishing { inFlight -= 1 }
    }

    /// The reason key used for a rejected decision that carries no `Rejection`.
    static let unknownReason = "Unknown"
}

/// One number counter of `Counters`; the raw value is its name on the wire (stats JSON).
package enum StatsCounter: String, Sendable, CaseIterable {
    case received, delivered, suppressed
    case notDisplayed = "not_displayed"
    case rejected, expired, unrouted, modified, timeout
    case extensionFailed = "extension_failed"
    case loopDropped = "loop_dropped"
    case partitionSkipped = "partition_skipped"
    case inFlight = "in_flight"

    /// The counters every counter object of the stats JSON holds, in the documented order: all but
    /// `inFlight`, which is written apart (at the top level, and per topic when not 0).
    package static let written: [StatsCounter] = allCases.filter { $0 != .inFlight }
}

extension Outcome {
    /// The counter of messages that ended so.
    package var counter: StatsCounter {
        switch self {
        case .delivered: .delivered
        case .suppressed: .suppressed
        case .notDisplayed: .notDisplayed
        case .rejected: .rejected
        case .expired: .expired
        case .unrouted: .unrouted
        }
    }
}
