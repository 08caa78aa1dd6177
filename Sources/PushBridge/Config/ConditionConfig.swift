/// What a clear does (`condition.on_clear`).
enum ClearAction: String, Sendable, CaseIterable {
    /// Publish the withdraw message: a display or phone removes the alert.
    case withdraw
    /// Publish the withdraw message, then send the all-clear alert.
    case notify
    /// Publish nothing.
    case none
}

/// One escalation step of a condition: taken once, `after` the raise, while the condition
/// is neither acknowledged nor cleared.
struct EscalationStep: Sendable {
    /// Counted from the raise.
    package var after: Duration
    /// Content fields rewritten for this step and the repeats after it (as the `set` filter).
    package var set: [(field: String, value: Template)] = []
    /// Another display topic for this step's notification (a template); `nil`: the display topic.
    var displayTopic: Template? = nil
    /// Outputs this step's notification is (also) sent through, whatever their `routes` and
    /// the route's audience.
    var outputs: [String] = []
    /// Where each of `outputs` is written (checked against the outputs afterwards).
    var outputMarks: [YAMLMark] = []

    init(after: Duration) { self.after = after }
}

/// `condition.live_activity`: the condition as an Apple Live Activity (`display.format: apns`).
struct LiveActivityConfig: Sendable {
    /// Renders the Live Activity's content state: a JSON object.
    var contentState: Template
    /// `aps.stale-date` is this long after each push; `nil`: not sent.
    var staleAfter: Duration? = nil
    /// The `end` push's `aps.dismissal-date` is this long after the clear.
    var dismissAfter: Duration = .seconds(4 * 3600)
    /// `aps.attributes-type` of the start push: the app's `ActivityAttributes` type, so the
    /// push starts the Live Activity itself (push-to-start); `nil`: not sent.
    var attributesType: String? = nil
    /// Renders `aps.attributes` of the start push (a JSON object; `{}` when only
    /// `attributes_type` is given).
    var attributes: Template? = nil
    /// Where `live_activity:` is written (for the check against `display.format`).
    var mark: YAMLMark? = nil

    init(contentState: Template) { self.contentState = contentState }
}

/// `condition:` on a route: its alerts are conditions that raise, repeat, escalate, are
/// acknowledged and clear, one per `key`.
struct ConditionConfig: Sendable {
    /// One condition per rendered key.
    package var key: Template
    /// True raises, false clears; a missing payload path (or a payload that is not JSON)
    /// makes it unevaluable, and the message changes nothing.
    var active: Expression
    /// The time between repeats while raised and not acknowledged; `nil`: never repeat.
    var repeatEvery: Duration? = nil
    /// How many repeats at most; `nil`: until acknowledged or cleared.
    var repeatCount: Int? = nil
    /// Escalation steps, sorted by `after`.
    var escalate: [EscalationStep] = []
    var onClear: ClearAction = .withdraw
    /// The all-clear alert's fields for `on_clear: notify`; `nil`: the alert with ": cleared"
    /// after its title.
    var clearAlert: [(field: String, value: Template)]? = nil
    /// At most this many active conditions on the route; the oldest is forgotten first.
    var maxActive = 10_000
    /// The condition as a Live Activity: start, update, end; `nil`: alerts.
    var liveActivity: LiveActivityConfig? = nil
    /// The condition route this one depends on (`depends_on`): while a condition of it is
    /// raised, this route's conditions are raised silently (`superseded`); `nil`: none.
    var dependsOn: String? = nil
    /// Which condition of `dependsOn` (`depends_key`), rendered for this route's message;
    /// `nil`: any raised condition of that route.
    var dependsKey: Template? = nil
    /// Where `depends_on` is written (for the checks across routes).
    var dependsOnMark: YAMLMark? = nil

    /// The life in one line, as `pushbridge check` prints it.
    var life: String {
        func d(_ x: Duration) -> String { x.text }
        var parts = ["one per key \"\(key.source)\"", "raised while \"\(active.source)\""]
        if let every = repeatEvery {
            parts.append("repeats every \(d(every))" + (repeatCount.map { " up to \($0) time\($0 == 1 ? "" : "s")" } ?? " until acknowledged"))
        } else {
            parts.append("no repeats")
        }
        for (index, step) in escalate.enumerated() {
            var text = "step \(index + 1) after \(d(step.after))"
            if !step.set.isEmpty { text += " sets " + step.set.map(\.field).joined(separator: ", ") }
            if let topic = step.displayTopic { text += " to \"\(topic.source)\"" }
            if !step.outputs.isEmpty { text += " also through " + step.outputs.joined(separator: ", ") }
            parts.append(text)
        }
        switch onClear {
        case .withdraw: parts.append("a clear withdraws the alert")
        case .notify: parts.append("a clear withdraws it and sends an all-clear")
        case .none: parts.append("a clear sends nothing")
        }
        if let live = liveActivity {
            parts.append("a Live Activity with content_state \"\(live.contentState.source)\"" + (live.staleAfter.map { " stale after \(d($0))" } ?? "")
                         + " dismissed \(d(live.dismissAfter)) after the clear")
        }
        if let parent = dependsOn {
            parts.append("silent (superseded) while a condition of '\(parent)'" + (dependsKey.map { " with key \"\($0.source)\"" } ?? "")
                         + " is raised, announced together when it clears")
        }
        parts.append("max_active=\(maxActive)")
        return parts.joined(separator: "; ")
    }
}

/// `conditions:` at the top level, shared by every condition route.
package struct ConditionsConfig: Sendable, Equatable {
    /// Acknowledgements and snoozes arrive here (JSON `{"alert_id":…}` or `{"route":…,"key":…}`).
    package var ackTopic: String

    init(ackTopic: String) { self.ackTopic = ackTopic }
}
