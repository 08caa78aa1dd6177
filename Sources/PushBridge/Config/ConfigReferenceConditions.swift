/// The reference of a route's `condition:` and the top-level `conditions:` (the alert lifecycle).
extension ConfigReference {
    static let conditionKeys: [ConfigKey] = [
        ConfigKey("routes[].condition", .mapping, note: "none (each message is an event)",
                  example: .object(["key": .string("{{ topic }}"), "active": .string("payload.water_leak == true")]),
                  "Makes the route's alerts conditions with a life of their own: raised by the first message whose active is true, repeated and escalated while nobody acknowledges, cleared by a message whose active is false (which withdraws the alert). While raised, further active messages notify nothing; raised again after a clear it is a new alert (a new alert_id)."),
        ConfigKey("routes[].condition.key", .template, required: true, example: .string("{{ topic }}"),
                  "Which condition a message is about: one condition per route and key."),
        ConfigKey("routes[].condition.active", .expression, required: true, example: .string("payload.water_leak == true"),
                  "true raises, false clears. A path the payload does not have, or a payload that is not JSON, makes it unevaluable: that message neither raises nor clears."),
        ConfigKey("routes[].condition.repeat", .mapping, note: "none (never repeated)",
                  example: .object(["every": .string("10m"), "count": .int(6)]),
                  "Repeat the alert while it is raised and neither acknowledged nor cleared. A repeat held back by quiet_hours or another suppressing filter is not counted and is tried again on schedule."),
        ConfigKey("routes[].condition.repeat.every", .duration, required: true, example: .string("10m"),
                  "Time between repeats (at least 1s), counted from the raise or the last escalation step."),
        ConfigKey("routes[].condition.repeat.count", .integer(min: 1, max: nil), note: "no limit", example: .int(6),
                  "Most repeats sent."),
        ConfigKey("routes[].condition.escalate", .listOfMappings, default: .array([]),
                  example: .array([.object(["after": .string("15m"), "set": .object(["interruption_level": .string("critical")])])]),
                  "Steps taken once each, in order, while the condition is raised and not acknowledged."),
        ConfigKey("routes[].condition.escalate[].after", .duration, required: true, example: .string("15m"),
                  "When the step is taken, counted from the raise; each step later than the one before."),
        ConfigKey("routes[].condition.escalate[].set", .mapping, example: .object(["interruption_level": .string("critical")]),
                  "Content fields the step rewrites (as the set filter: templates that see content and condition)."),
        ConfigKey("routes[].condition.escalate[].display_topic", .template, note: "display.topic", example: .string("display/escalated/{{ route }}"),
                  "Another display topic for this step's notification (another audience)."),
        ConfigKey("routes[].condition.on_clear", .words(["withdraw", "notify", "none"]), default: .string("withdraw"), example: .string("notify"),
                  "What a clear publishes: withdraw (a withdraw message on the display topic, so displays and phones remove the alert), notify (the withdraw, then an all-clear alert) or none."),
        ConfigKey("routes[].condition.clear_alert", .mapping, note: "the title with \": cleared\"",
                  example: .object(["title": .string("Dry again: {{ topic }}")]),
                  "The all-clear alert of on_clear: notify: content fields as templates."),
        ConfigKey("routes[].condition.max_active", .integer(min: 1, max: 10_000_000), default: .int(10_000), example: .int(500),
                  "Most conditions raised at once on this route; the oldest is forgotten first (counted and logged)."),
        ConfigKey("routes[].condition.depends_on", .string, note: "none", example: .string("zigbee2mqtt-bridge-offline"),
                  "Another condition route (not this one; no cycles) whose condition is this one's root cause: while a condition of it is raised, this route's conditions are raised silently (state superseded: stored, listed in /api/alerts, counted, but no notification, repeat or escalation). When it clears, those still active are announced in one notification of this route (their count and titles) and then live on as ordinary conditions; those that cleared meanwhile say nothing."),
        ConfigKey("routes[].condition.depends_key", .template, note: "any raised condition of depends_on",
                  example: .string("zigbee2mqtt/bridge/state"),
                  "Which condition of depends_on (its key), rendered for this route's message: this route's conditions are superseded only while that one is raised."),
        ConfigKey("routes[].condition.live_activity", .mapping, note: "none (alerts)",
                  example: .object(["content_state": .string("{\"level\": {{ payload.level }}}"), "stale_after": .string("1h")]),
                  "The condition as an Apple Live Activity (needs display.format: apns): the raise starts it (aps.event start, apns-push-type liveactivity), each message that changes the rendered content_state while raised updates it, the clear ends it (in place of on_clear's messages)."),
        ConfigKey("routes[].condition.live_activity.content_state", .template, required: true,
                  example: .string("{\"level\": {{ payload.level }}}"),
                  "aps.content-state: must render a JSON object."),
        ConfigKey("routes[].condition.live_activity.stale_after", .duration, note: "no aps.stale-date", example: .string("1h"),
                  "aps.stale-date is this long after each push."),
        ConfigKey("routes[].condition.live_activity.attributes_type", .string, note: "not sent (the app starts the activity)",
                  example: .string("LeakAttributes"),
                  "aps.attributes-type of the start push: the app's ActivityAttributes type, so the raise starts the Live Activity by push (push-to-start, iOS 17.2+)."),
        ConfigKey("routes[].condition.live_activity.attributes", .template, default: .string("{}"),
                  example: .string("{\"sensor\": \"{{ levels[-1] }}\"}"),
                  "aps.attributes of the start push (with attributes_type): the activity's static attributes, a template that renders a JSON object."),
        ConfigKey("routes[].condition.live_activity.dismiss_after", .duration, default: .string("4h"), example: .string("30m"),
                  "The end push's aps.dismissal-date is this long after the clear."),
    ] + contentFields(under: "routes[].condition.escalate[].set") + contentFields(under: "routes[].condition.clear_alert")

    static let conditionsSection: [ConfigKey] = [
        ConfigKey("conditions", .mapping, note: "none", example: .object(["ack_topic": .string("pushbridge/ack")]),
                  "Settings shared by every condition route."),
        ConfigKey("conditions.ack_topic", .string, required: true, example: .string("pushbridge/ack"),
                  "Where acknowledgements and snoozes arrive: JSON {\"alert_id\":…} or {\"route\":…,\"key\":…}, optional \"by\" and \"snooze\":\"30m\" (pushbridge ack publishes them). One for no active alert is counted (ack_unknown) and logged at debug; anything else is counted (ack_rejected), warned about at most once a minute and dead-lettered as BadAcknowledgement."),
    ]

    /// The `set` filter's content fields, under another mapping that takes them.
    private static func contentFields(under path: String) -> [ConfigKey] {
        setKeys.map { ConfigKey(path + "." + $0.name, $0.type, example: $0.example, $0.summary) }
    }
}
