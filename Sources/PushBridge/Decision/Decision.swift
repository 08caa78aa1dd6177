/// The outcomes (docs/metrics.md, "Outcomes"): every message ends in exactly one.
package enum Outcome: String, Sendable, CaseIterable {
    case delivered, suppressed
    case notDisplayed = "not_displayed"
    case rejected, expired, unrouted
}

/// What the pipeline decided for one message, with everything needed to publish,
/// count and explain it (`pushbridge try`).
package struct Decision: Sendable {
    package var outcome: Outcome
    /// The matched route's name.
    package var route: String?
    /// The request as built (after the extension stage when it ran).
    package var request: NotificationRequest?
    /// Why it was rejected.
    package var rejection: Rejection?
    /// The filter or extension that suppressed it.
    package var decidedBy: String?
    /// Human-readable explanation of the rule that decided (for `try`).
    package var rule: String
    /// A condition route with `continue: true` found nothing to change (its `active` cannot be
    /// evaluated, or the condition stays as it is): the message goes on to the next route
    /// without a decision of this route (not published, not counted).
    package var passedOver = false
    /// Content differs from the original.
    package var modified = false
    /// The extension stage did not answer in time.
    package var timedOut = false
    /// The extension failed (threw, crashed, answered garbage).
    package var extensionFailed = false
    /// Each filter's verdict, in order.
    package var filterTrace: [(name: String, verdict: String)] {
        get { stageTrace.map { ($0.name, $0.verdict) } }
        set { stageTrace = newValue.map { FilterTrace(name: $0.name, verdict: $0.verdict) } }
    }
    /// The stage's trace as it came (shared, not converted per message; `filterTrace` reads it).
    var stageTrace: [FilterTrace] = []
    /// Time spent in the extension stage, in seconds (nil when it did not run).
    var stageSeconds: Double?
    /// The messages to publish: the display message or the dead letter.
    package var publish: [OutboundMessage] = []
    /// What became of each of the route's attachments (empty when it has none).
    package var attachments: [AttachmentOutcome] = []
    /// A condition's transition this decision carries (raised, repeated, escalated, cleared).
    package var conditionEvent: ConditionEvent?
    /// The withdraw message's value, when a condition cleared (already rendered into `publish`).
    package var withdrawal: Withdrawal? { conditionEvent?.withdrawal }
    /// Outputs an escalation step names: they get the alert besides the route's own outputs.
    var extraOutputs: [String] = []

    package init(outcome: Outcome, route: String?, rule: String) {
        self.outcome = outcome
        self.route = route
        self.rule = rule
    }

    /// A decision with a request, every member given: the pipeline's hot paths
    /// (`Pipeline.decision`, `deliver`) return it as made. Filled in place after
    /// `init(outcome:route:rule:)`, it was copied twice on the way out (~600 instructions per
    /// message with the copies' releases).
    init(outcome: Outcome, route: String?, request: NotificationRequest, decidedBy: String?, rule: String,
         modified: Bool, timedOut: Bool, extensionFailed: Bool, stageTrace: [FilterTrace],
         stageSeconds: Double?, publish: [OutboundMessage]) {
        self.outcome = outcome
        self.route = route
        self.request = request
        self.decidedBy = decidedBy
        self.rule = rule
        self.modified = modified
        self.timedOut = timedOut
        self.extensionFailed = extensionFailed
        self.stageTrace = stageTrace
        self.stageSeconds = stageSeconds
        self.publish = publish
    }

    init(outcome: Outcome, route: String?, rule: String, passedOver: Bool) {
        self.init(outcome: outcome, route: route, rule: rule)
        self.passedOver = passedOver
    }
}
