/// One message's final decision as the dashboard and the trace topic see it.
///
/// The JSON object has exactly the keys `at`, `id`, `topic`, `route`, `outcome`,
/// `decided_by`, `rule` and `reason`, in that order (`null` where there is no value), then
/// `attachments` when the route has attachments: what became of each (`AttachmentOutcome`'s
/// trace form). It never carries payload or notification text, except with `includeText`
/// (the bridge sets it only under `monitoring.log_level: debug`), which adds `title`,
/// `subtitle` and `body`.
package struct DecisionRecord: Sendable, Equatable {
    /// When the decision became final, UNIX seconds.
    package var at: Double
    /// The message's id (`apns-id` when the source gave one, else the UUID fixed at arrival).
    package var id: String
    /// The source topic.
    package var topic: String
    /// The matched route (`nil` when unrouted).
    package var route: String?
    /// One of the outcomes (docs/metrics.md, "Outcomes").
    package var outcome: Outcome
    /// The filter or extension that suppressed it.
    package var decidedBy: String?
    /// The rule that decided, as `pushbridge try` shows it.
    package var rule: String
    /// The APNs reason of a rejection.
    package var reason: String?
    /// What became of each of the route's attachments (empty when it has none).
    package var attachments: [AttachmentOutcome] = []
    /// Notification text (title, subtitle, body), only with `includeText`.
    package var text: (title: String?, subtitle: String?, body: String?)?

    /// The longest `rule` carried (a rule quotes an extension's error text, which has no bound).
    static let maxRuleLength = 300

    /// A record from its parts.
    init(at: Double, id: String, topic: String, route: String?, outcome: Outcome,
                decidedBy: String?, rule: String, reason: String?) {
        self.at = at
        self.id = id
        self.topic = topic
        self.route = route
        self.outcome = outcome
        self.decidedBy = decidedBy
        self.rule = rule
        self.reason = reason
    }

    /// The record of `decision` for the message `id` from `topic`, decided at `at`.
    init(_ decision: Decision, id: String, topic: String, at: Double, includeText: Bool = false) {
        self.init(at: at, id: id, topic: topic, route: decision.outcome == .unrouted ? nil : decision.route,
                  outcome: decision.outcome, decidedBy: decision.outcome == .suppressed ? decision.decidedBy : nil,
                  rule: decision.rule, reason: decision.rejection?.reason.rawValue)
        attachments = decision.attachments
        if includeText, let content = decision.request?.content {
            text = (content.title, content.subtitle, content.body)
        }
    }

    /// The JSON object, one line (strings escaped, so no raw newline).
    package func json() -> [UInt8] {
        var w = JSONWriter(capacity: 256)
        w.beginObject()
        w.key("at"); w.string(Timestamp.iso8601(at))
        w.key("id"); w.string(id)
        w.key("topic"); w.string(topic)
        w.key("route"); Self.optional(route, &w)
        w.key("outcome"); w.string(outcome.rawValue)
        w.key("decided_by"); Self.optional(decidedBy, &w)
        w.key("rule")
        w.string(rule.count > Self.maxRuleLength ? String(rule.prefix(Self.maxRuleLength - 1)) + "…" : rule)
        w.key("reason"); Self.optional(reason, &w)
        if !attachments.isEmpty { w.add("attachments", .array(attachments.map(\.jsonValue))) }
        if let text {
            w.key("title"); Self.optional(text.title, &w)
            w.key("subtitle"); Self.optional(text.subtitle, &w)
            w.key("body"); Self.optional(text.body, &w)
        }
        w.endObject()
        return w.bytes
    }

    private static func optional(_ s: String?, _ w: inout JSONWriter) {
        if let s { w.string(s) } else { w.null() }
    }

    package static func == (a: DecisionRecord, b: DecisionRecord) -> Bool {
        a.at == b.at && a.id == b.id && a.topic == b.topic && a.route == b.route && a.outcome == b.outcome
            && a.decidedBy == b.decidedBy && a.rule == b.rule && a.reason == b.reason && a.attachments == b.attachments
            && a.text?.title == b.text?.title && a.text?.subtitle == b.text?.subtitle && a.text?.body == b.text?.body
    }
}
