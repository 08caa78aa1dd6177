/// Reads a route's `condition:` and the top-level `conditions:` (the alert lifecycle).
extension ConfigReader {
    static let conditionKeys = ConfigReference.keys(in: "routes[].condition")
    static let repeatKeys = ConfigReference.keys(in: "routes[].condition.repeat")
    static let escalationKeys = ConfigReference.keys(in: "routes[].condition.escalate[]")
    static let liveActivityKeys = ConfigReference.keys(in: "routes[].condition.live_activity")
    static let conditionsKeys = ConfigReference.keys(in: "conditions")

    /// `condition:` of the route named `route`; every problem is reported at its value.
    func readCondition(_ node: YAMLNode, route: String) -> ConditionConfig? {
        guard let f = fields(node, key: "condition", context: "condition", known: Self.conditionKeys) else { return nil }
        let key = required(f, "key", in: "condition").flatMap { template($0, key: "key") }
        let active = required(f, "active", in: "condition").flatMap { expression($0, key: "active") }
        var repeatEvery: Duration?
        var repeatCount: Int?
        if let n = f["repeat"], let r = fields(n, key: "repeat", context: "repeat", known: Self.repeatKeys) {
            repeatEvery = required(r, "every", in: "repeat").flatMap { duration($0, key: "every", minimum: .seconds(1)) }
            if let c = r["count"] { repeatCount = int(c, key: "count", range: 1...Int.max) }
        }
        var steps: [EscalationStep] = []
        if let n = f["escalate"], let items = sequence(n, key: "escalate") {
            var last: Duration?
            for item in items {
                guard let s = fields(item, key: "escalate", context: "escalation step", known: Self.escalationKeys),
                      let after = required(s, "after", in: "escalation step").flatMap({
                          duration($0, key: "after", minimum: Self.positive) }) else { continue }
                if let last, after <= last {
                    error("escalation steps must be in order of 'after': \(after.text) is not after \(last.text)",
                          at: s["after"]!.mark)
                    continue
                }
                last = after
                var step = EscalationStep(after: after)
                if let set = s["set"] { step.set = contentSets(set, key: "set") ?? [] }
                if let t = s["display_topic"] {
                    step.displayTopic = template(t, key: "display_topic")
                    if let topic = step.displayTopic, !topic.hasHoles, let problem = TopicFilter.validatePublishTopic(topic.source) {
                        error("invalid 'display_topic' '\(topic.source)': \(problem)", at: t.mark)
                    }
                }
                if let o = s["outputs"], let list = strings(o, key: "outputs") {
                    step.outputs = list.map(\.0)
                    step.outputMarks = list.map(\.1.mark)
                }
                steps.append(step)
            }
        }
        var onClear = ClearAction.withdraw
        if let n = f["on_clear"], let v: ClearAction = word(n, key: "on_clear") { onClear = v }
        var clearAlert: [(field: String, value: Template)]?
        if let n = f["clear_alert"] {
            clearAlert = contentSets(n, key: "clear_alert")
            if onClear != .notify {
                warn("'clear_alert' is sent only with 'on_clear: notify' (route '\(route)' has on_clear: \(onClear.rawValue))",
                     at: f.keyMarks["clear_alert"] ?? n.mark)
            }
        }
        var maxActive = 10_000
        if let n = f["max_active"], let v = int(n, key: "max_active", range: 1...10_000_000) { maxActive = v }
        var liveActivity: LiveActivityConfig?
        if let n = f["live_activity"], let l = fields(n, key: "live_activity", context: "live_activity", known: Self.liveActivityKeys),
           let state = required(l, "content_state", in: "live_activity").flatMap({ template($0, key: "content_state") }) {
            var live = LiveActivityConfig(contentState: state)
            live.mark = f.keyMarks["live_activity"] ?? n.mark
            if let s = l["stale_after"] { live.staleAfter = duration(s, key: "stale_after", minimum: .seconds(1)) }
            if let s = l["dismiss_after"], let d = duration(s, key: "dismiss_after", minimum: .zero) { live.dismissAfter = d }
            if let s = l["attributes_type"], let t = string(s, key: "attributes_type") {
                if t.isEmpty { error("'attributes_type' must name the app's ActivityAttributes type", at: s.mark) } else { live.attributesType = t }
            }
            if let s = l["attributes"] {
                live.attributes = template(s, key: "attributes")
                if live.attributesType == nil {
                    error("'attributes' needs 'attributes_type' (the start push carries both, or neither)", at: s.mark)
                }
            }
            liveActivity = live
        }
        var dependsOn: (name: String, mark: YAMLMark)?
        if let n = f["depends_on"], let name = string(n, key: "depends_on") {
            if name.isEmpty { error("'depends_on' must name a condition route", at: n.mark) } else { dependsOn = (name, n.mark) }
        }
        var dependsKey: Template?
        if let n = f["depends_key"] {
            dependsKey = template(n, key: "depends_key")
            if f["depends_on"] == nil {
                error("'depends_key' needs 'depends_on' (the route whose condition it names)", at: f.keyMarks["depends_key"] ?? n.mark)
            }
        }
        guard let key, let active else { return nil }
        var condition = ConditionConfig(key: key, active: active)
        condition.repeatEvery = repeatEvery
        condition.repeatCount = repeatEvery == nil ? nil : repeatCount
        condition.escalate = steps
        condition.onClear = onClear
        condition.clearAlert = clearAlert
        condition.maxActive = maxActive
        condition.liveActivity = liveActivity
        condition.dependsOn = dependsOn?.name
        condition.dependsOnMark = dependsOn?.mark
        condition.dependsKey = dependsOn == nil ? nil : dependsKey
        return condition
    }

    /// The top-level `conditions:` section.
    func readConditions(_ node: YAMLNode) -> ConditionsConfig? {
        guard let f = fields(node, key: "conditions", context: "conditions", known: Self.conditionsKeys),
              let n = required(f, "ack_topic", in: "conditions"), let topic = string(n, key: "ack_topic") else { return nil }
        if let problem = TopicFilter.validatePublishTopic(topic) {
            error("invalid 'ack_topic' '\(topic)': \(problem)", at: n.mark)
            return nil
        }
        return ConditionsConfig(ackTopic: topic)
    }
}
