/// The reference of `display:`, `dead_letter:`, `journal:` and `monitoring:`.
extension ConfigReference {
    static let outputs: [ConfigKey] = display + journal + monitoring

    static let display: [ConfigKey] = [
        ConfigKey("display.topic", .template, default: .string("display/{{ topic }}"), example: .string("display/{{ route }}"),
                  "Topic each delivered alert is published to (a template; no wildcards)."),
        ConfigKey("display.qos", .integers([0, 1, 2]), default: .int(1), example: .int(0), "QoS of display messages."),
        ConfigKey("display.retain", .boolean, default: .bool(false), example: .bool(true),
                  "Publish display messages retained (a display that connects later sees the last alert of each topic)."),
        ConfigKey("display.format", .words(["json", "apns", "text"]), default: .string("json"), example: .string("apns"),
                  "json (one flat object), apns (the APNs body, headers as MQTT 5 user properties) or text (the body alone)."),
        ConfigKey("dead_letter.topic", .template, required: true, example: .string("pushbridge/dead/{{ route }}"),
                  "Topic rejected messages are published to, with reason, detail and the original payload."),
        ConfigKey("dead_letter.qos", .integers([0, 1, 2]), default: .int(1), example: .int(0), "QoS of dead-letter messages."),
    ]

    static let journal: [ConfigKey] = [
        ConfigKey("journal.path", .string, default: .string("/var/lib/pushbridge/journal"), example: .string("/data/journal"),
                  "The SQLite database (WAL mode) holding messages in flight and filter memory."),
        ConfigKey("journal.fsync", .words(["always", "interval", "never"]), default: .string("interval"), example: .string("always"),
                  "When the journal is synced to disk: always (every batch), interval (about once a second: a power loss may lose the last second) or never (the OS decides)."),
        ConfigKey("journal.max_messages", .integer(min: 1, max: nil), default: .int(100_000), example: .int(10_000),
                  "Most messages kept in flight before intake stops reading (backpressure)."),
    ]

    static let monitoring: [ConfigKey] = [
        ConfigKey("monitoring.status_topic", .string, default: .string("pushbridge/status"), example: .string("home/pushbridge/status"),
                  "Retained \"online\" while the bridge runs; the will and a clean stop set \"offline\". null: none."),
        ConfigKey("monitoring.stats_topic", .string, default: .string("pushbridge/stats"), example: .string("home/pushbridge/stats"),
                  "Retained JSON snapshot of the counters, every interval and on a clean stop. null: none."),
        ConfigKey("monitoring.trace_topic", .string, example: .string("pushbridge/trace"),
                  "One decision object per message (QoS 0, not retained), for tools that read MQTT. Absent or null: off."),
        ConfigKey("monitoring.interval", .duration, default: .string("10s"), example: .string("30s"),
                  "How often the stats topic is published; at least 100ms."),
        ConfigKey("monitoring.max_topics", .integer(min: 1, max: nil), default: .int(1000), example: .int(5000),
                  "Distinct topics tracked in the stats; the rest count under \"(other)\"."),
        ConfigKey("monitoring.http", .string, example: .string("127.0.0.1:9464"),
                  "host:port of the HTTP server: /metrics, /healthz, /readyz, the dashboard /, /api/stats, /api/events. Anything but a loopback address needs http_auth. Absent or null: off."),
        ConfigKey("monitoring.http_auth", .either([.words(["none"]), .mapping]), note: "not set (allowed only when http is a loopback address)",
                  example: .object(["token_file": .string("http_token")]),
                  "Who may use the HTTP server. With token_file, every path but /healthz, /readyz, /subscribe (with its files) and /attachments/… answers 401 unless the request carries the token: Authorization: Bearer <token>, or the session cookie POST /login sets (12 hours). none: open to everyone who reaches http (check warns). Required when http is not a loopback address (127.0.0.0/8, ::1, localhost); not read while http is null."),
        ConfigKey("monitoring.http_auth.token_file", .string, required: true, example: .string("http_token"),
                  "File whose first line is the token, read when the config loads and again on SIGHUP (never printed or logged)."),
        ConfigKey("monitoring.tls", .mapping, note: "none (plain HTTP)",
                  example: .object(["cert_file": .string("tls.crt"), "key_file": .string("tls.key")]),
                  "Serve the HTTP endpoints over TLS (HTTPS): browsers allow Web Push subscriptions only on a secure origin. Needs http. Absent or null: plain HTTP."),
        ConfigKey("monitoring.tls.cert_file", .string, required: true, example: .string("tls.crt"),
                  "PEM file of the server certificate (its chain after it), read when the config loads."),
        ConfigKey("monitoring.tls.key_file", .string, required: true, example: .string("tls.key"),
                  "PEM file of the certificate's private key, read when the config loads (never printed)."),
        ConfigKey("monitoring.log_level", .words(LogLevel.allCases.map(\.rawValue)), default: .string("info"), example: .string("debug"),
                  "Lowest level logged. debug also lets payload and notification text into the decision events."),
        ConfigKey("monitoring.log_format", .words(LogFormat.allCases.map(\.rawValue)), default: .string("text"), example: .string("json"),
                  "text lines or one JSON object per line (for journald or a log shipper)."),
    ]

    static let scaleOut: [ConfigKey] = [
        ConfigKey("partition", .mapping, note: "none (every topic)", example: .object(["index": .int(0), "count": .int(2)]),
                  "Topic partitioning over replicas: each replica subscribes to every route without sharing and handles only the topics whose FNV-1a hash modulo count is index (the others are acknowledged and counted partition_skipped). Not together with share."),
        ConfigKey("partition.index", .integer(min: 0, max: nil), required: true, example: .string("${REPLICA}"),
                  "This replica, from 0 to count - 1 (typically from the environment; \"${REPLICA}\" quoted reads as a number)."),
        ConfigKey("partition.count", .integer(min: 1, max: PartitionConfig.maxCount), required: true, example: .int(2),
                  "How many replicas share the topics."),
        ConfigKey("homeassistant", .mapping, note: "none (off)", example: .object(["device_name": .string("Notifications")]),
                  "Announce the bridge to Home Assistant with MQTT discovery: a device with connectivity, counter and event entities per route, and a notify entity. Needs monitoring.status_topic and stats_topic. Absent or null: off."),
        ConfigKey("homeassistant.discovery_prefix", .string, default: .string("homeassistant"), example: .string("ha"),
                  "Where Home Assistant reads discovery configs; <prefix>/status online makes the bridge announce again."),
        ConfigKey("homeassistant.device_name", .string, default: .string("pushbridge"), example: .string("Notifications"),
                  "The device's name in Home Assistant."),
        ConfigKey("homeassistant.notify_topic", .string, default: .string("pushbridge/notify"), example: .string("home/notify"),
                  "Where the notify entity publishes what Home Assistant sends with it; a route must match it."),
    ]
}
