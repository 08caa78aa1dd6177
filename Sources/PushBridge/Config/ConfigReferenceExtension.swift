/// The reference of `extension:` and its declarative filters.
extension ConfigReference {
    static let extensionSection: [ConfigKey] = [
        ConfigKey("extension.time_limit", .duration, default: .string("30s"), example: .string("5s"),
                  "Apple's budget for didReceive: after it, serviceExtensionTimeWillExpire() is called."),
        ConfigKey("extension.expire_grace", .duration, default: .string("1s"), example: .string("500ms"),
                  "How long to wait after serviceExtensionTimeWillExpire() before the original content is delivered (timeout counted)."),
        ConfigKey("extension.concurrency", .integer(min: 1, max: nil), default: .int(256), example: .int(64),
                  "Requests inside the extension stage at once."),
        ConfigKey("extension.on_failure", .words(["deliver", "drop"]), default: .string("deliver"), example: .string("drop"),
                  "When the extension throws, crashes or answers garbage: deliver the original (Apple's behaviour) or drop it."),
        ConfigKey("extension.filters", .listOfMappings, default: .array([]),
                  example: .array([.object(["suppress": .string("payload.level == \"debug\"")])]),
                  "Declarative filters, applied in order like a built-in service extension. Each has exactly one action key (suppress, set, dedupe, rate_limit, changed, quiet_hours); a suppressing filter stops the chain."),
        ConfigKey("extension.command", .strings, example: .array([.string("python3"), .string("/etc/pushbridge/filter.py")]),
                  "External extension process (argv): one long-lived child speaking newline-delimited JSON, restarted with backoff when it exits."),
        ConfigKey("extension.filters[].name", .string, note: "the action and its position, e.g. suppress#1", example: .string("drop-debug"),
                  "The filter's name in the stats, /metrics, try and the trace. Named filters keep their memory across reloads when their definition is unchanged."),
        ConfigKey("extension.filters[].when", .expression, example: .string("payload.battery != null"),
                  "Apply the filter only when this is true."),
        ConfigKey("extension.filters[].routes", .strings, note: "every route", example: .array([.string("doorbell")]),
                  "Route names the filter applies to."),
        ConfigKey("extension.filters[].suppress", .expression, example: .string("payload.level == \"debug\""),
                  "Action: hand back empty content when the expression is true."),
        ConfigKey("extension.filters[].set", .mapping, example: .object(["title": .string("{{ payload.room }}: {{ content.title }}")]),
                  "Action: rewrite content fields, each a template that sees the content so far as content."),
    ] + setKeys + memoryKeys + quietHoursKeys

    /// The content fields `set` rewrites, with the critical sound's parts and user_info.
    static let setKeys: [ConfigKey] = [
        ("title", "The title.", "{{ payload.room }}: {{ content.title }}"), ("subtitle", "The subtitle.", "{{ levels[1] }}"),
        ("body", "The body.", "{{ content.body | upper }}"), ("sound", "The sound name (default, or a name).", "default"),
        ("sound_critical", "true or false: a critical alert sound.", "true"),
        ("sound_volume", "The critical sound's volume, 0 to 1.", "0.8"), ("badge", "The badge (an integer).", "1"),
        ("thread_id", "The thread id.", "{{ topic }}"), ("category", "The category.", "ALARM"),
        ("interruption_level", "passive, active, time-sensitive or critical.", "critical"),
        ("relevance_score", "Relevance, 0 to 1.", "1"), ("target_content_id", "The target content id.", "{{ topic }}"),
        ("filter_criteria", "Focus filter criteria.", "home"), ("user_info", "userInfo (JSON).", "{{ payload }}"),
    ].map { ConfigKey("extension.filters[].set." + $0.0, .template, example: .string($0.2), $0.1) } + [
        ConfigKey("extension.filters[].set.attachments", .either([.strings, .template]), example: .array([]),
                  "The attachments to keep, by identifier (a list, or a template rendering one): [] drops them all. Never adds one."),
    ]

    private static func maxKeys(_ action: String) -> ConfigKey {
        ConfigKey("extension.filters[].\(action).max_keys", .integer(min: 1, max: 10_000_000),
                  default: .int(Int64(FilterConfig.defaultMaxKeys)), example: .int(50_000),
                  "Most keys remembered; the oldest is forgotten first (evictions counted per filter).")
    }

    static let memoryKeys: [ConfigKey] = [
        ConfigKey("extension.filters[].dedupe", .mapping,
                  example: .object(["key": .string("{{ topic }}/{{ payload.state }}"), "window": .string("10m")]),
                  "Action: suppress a repeat of the same key within the window."),
        ConfigKey("extension.filters[].dedupe.key", .template, required: true, example: .string("{{ topic }}/{{ payload.state }}"),
                  "What makes two messages the same."),
        ConfigKey("extension.filters[].dedupe.window", .duration, required: true, example: .string("10m"),
                  "How long a key is remembered."),
        maxKeys("dedupe"),
        ConfigKey("extension.filters[].rate_limit", .mapping,
                  example: .object(["key": .string("{{ topic }}"), "max": .int(5), "window": .string("1m")]),
                  "Action: let at most max messages per key through within the window."),
        ConfigKey("extension.filters[].rate_limit.key", .template, required: true, example: .string("{{ topic }}"),
                  "What is counted together."),
        ConfigKey("extension.filters[].rate_limit.max", .integer(min: 1, max: nil), required: true, example: .int(5),
                  "Messages let through per window."),
        ConfigKey("extension.filters[].rate_limit.window", .duration, required: true, example: .string("1m"),
                  "The window."),
        maxKeys("rate_limit"),
        ConfigKey("extension.filters[].changed", .mapping,
                  example: .object(["key": .string("{{ topic }}"), "value": .string("{{ raw | trim }}")]),
                  "Action: report by exception. Suppress a message whose value equals the last value recorded for its key; every message seen records its value (retained state too)."),
        ConfigKey("extension.filters[].changed.key", .template, required: true, example: .string("{{ topic }}"),
                  "Whose value is compared."),
        ConfigKey("extension.filters[].changed.value", .template, required: true, example: .string("{{ raw | trim }}"),
                  "The value compared with the last one recorded."),
        ConfigKey("extension.filters[].changed.deadband", .number(min: 0, max: nil), default: .int(0), example: .double(0.5),
                  "When both values render as numbers, they differ only when more than this apart."),
        ConfigKey("extension.filters[].changed.initial", .words(ChangedInitial.allCases.map(\.rawValue)), default: .string("deliver"),
                  example: .string("suppress"), "What a key with no recorded value does."),
        maxKeys("changed"),
    ]

    static let quietHoursKeys: [ConfigKey] = [
        ConfigKey("extension.filters[].quiet_hours", .mapping,
                  example: .object(["from": .string("22:00"), "to": .string("07:00")]),
                  "Action: suppress between from and to (local time; across midnight when from is later than to)."),
        ConfigKey("extension.filters[].quiet_hours.from", .clock, required: true, example: .string("22:00"), "Start, HH:MM."),
        ConfigKey("extension.filters[].quiet_hours.to", .clock, required: true, example: .string("07:00"), "End, HH:MM."),
        ConfigKey("extension.filters[].quiet_hours.timezone", .string, note: "the system's time zone",
                  example: .string("Europe/Berlin"), "IANA time zone of from and to."),
        ConfigKey("extension.filters[].quiet_hours.unless", .expression,
                  example: .string("content.interruption_level in [\"time-sensitive\", \"critical\"]"),
                  "Let the message through anyway when this is true."),
    ]
}
