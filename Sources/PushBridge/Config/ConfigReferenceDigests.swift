/// The reference of a route's `digest:` (a storm of alerts becomes one notification).
extension ConfigReference {
    static let digestKeys: [ConfigKey] = [
        ConfigKey("routes[].digest", .mapping, note: "none (every alert is delivered by itself)",
                  example: .object(["window": .string("2m"), "max": .int(3)]),
                  "Turns a storm of the route's alerts into one notification: per key, a window opens with the first alert and lasts window; its first max alerts are delivered one by one, the rest are held (counted suppressed, decided by digest) and delivered together when the window ends as one summary (collapse id <route>-digest, on the display topic and to the outputs). Critical alerts (interruption_level critical) are never held and do not count toward max. Of a condition route only the raises are digested (repeats, escalations and all-clears never are). With a journal the held alerts survive a crash or restart. See docs/people.md, Digests."),
        ConfigKey("routes[].digest.window", .duration, default: .string("5m"), example: .string("2m"),
                  "How long a window lasts from its first alert (greater than 0)."),
        ConfigKey("routes[].digest.max", .integer(min: 0, max: nil), default: .int(3), example: .int(5),
                  "Alerts of a window delivered one by one before the rest are held; 0 holds every one (all summarized)."),
        ConfigKey("routes[].digest.key", .template, default: .string("{{ route }}"), example: .string("{{ payload.device }}"),
                  "Which window an alert belongs to: one window per rendered key."),
        ConfigKey("routes[].digest.title", .template, note: "\"N more: <route>\"", example: .string("{{ digest.count }} devices offline"),
                  "The summary's title. Templates see digest.count, digest.titles (list), digest.keys (list: a condition's key, else the alert's collapse id, else its topic), digest.first_at and digest.last_at (ISO-8601, Z): of the held alerts only, not those already delivered."),
        ConfigKey("routes[].digest.body", .template, note: "the held alerts' titles joined by \", \"",
                  example: .string("{{ digest.titles | join(', ') }}"), "The summary's body (sees digest.* as title does)."),
    ]
}
