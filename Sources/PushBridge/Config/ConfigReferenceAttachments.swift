/// The reference of `attachments:` and of a route's `attachments:` list.
extension ConfigReference {
    private static let size: ConfigType = .either([.string, .integer(min: 1, max: nil)])

    static let routeAttachments: [ConfigKey] = [
        ConfigKey("routes[].attachments", .listOfMappings, example: .array([.object([
                      "identifier": .string("snapshot"),
                      "from_topic": .string("frigate/{{ payload.after.camera }}/person/snapshot")])]),
                  "Pictures, sounds or films attached to the route's alerts: bytes published on an MQTT topic (from_topic) or fetched over HTTP (url). An alert waits for them at most attachments.wait, and is never lost for one: it goes out without the attachment, with the reason counted."),
        ConfigKey("routes[].attachments[].identifier", .string, note: "attachment-1, attachment-2, …", example: .string("snapshot"),
                  "Names the attachment, unique within the request: letters, digits, - and _ (it names the stored file)."),
        ConfigKey("routes[].attachments[].from_topic", .template, example: .string("frigate/{{ payload.after.camera }}/person/snapshot"),
                  "A topic template: the bridge subscribes to it from the start (each level with a hole read as +) and keeps the newest bytes of each matching topic; the alert takes the bytes of the topic it renders, seen within max_age before it or arriving within attachments.wait after it."),
        ConfigKey("routes[].attachments[].max_age", .duration, default: .string("1m"), example: .string("30s"),
                  "How old the newest bytes on from_topic may be when the alert arrives (older ones wait for new bytes)."),
        ConfigKey("routes[].attachments[].url", .template, example: .string("http://frigate:5000/api/events/{{ payload.after.id }}/snapshot.jpg"),
                  "An http:// or https:// URL template, fetched when the alert arrives (libcurl, at most 3 redirects, aborted once past the type's limit, attachments.wait as deadline). The scheme, host and port are literal; each substituted value is percent-encoded as one path segment, so a message chooses which picture, never which server."),
        ConfigKey("routes[].attachments[].headers", .stringMap, example: .object(["X-Api-Key": .string("f1e2d3c4")]),
                  "Extra request headers of a url attachment."),
        ConfigKey("routes[].attachments[].token_file", .string, example: .string("frigate_token"),
                  "File whose first line is a token sent as Authorization: Bearer with a url attachment (never printed)."),
    ]

    static let attachmentsSection: [ConfigKey] = [
        ConfigKey("attachments", .mapping, example: .object(["wait": .string("5s")]),
                  "Settings of every route's attachments: the wait, Apple's per-type limits and the store that serves them over HTTP."),
        ConfigKey("attachments.wait", .duration, default: .string("5s"), example: .string("3s"),
                  "The longest an alert is held for its attachments; then it goes out without the ones still missing."),
        ConfigKey("attachments.max_bytes", .mapping, example: .object(["image": .string("5MB")]),
                  "The largest attachment of each type, Apple's limits by default; a body over its type's limit is not attached (TooLarge)."),
        ConfigKey("attachments.max_bytes.image", size, default: .string("10MB"), example: .string("5MB"),
                  "JPEG, PNG and GIF."),
        ConfigKey("attachments.max_bytes.audio", size, default: .string("5MB"), example: .string("2MB"),
                  "MP3, M4A/AAC, WAV and AIFF."),
        ConfigKey("attachments.max_bytes.video", size, default: .string("50MB"), example: .string("20MB"),
                  "MP4/M4V, MOV and MPEG."),
        ConfigKey("attachments.keep", .duration, default: .string("24h"), example: .string("2h"),
                  "How long stored attachments are served; after that their URL answers 404."),
        ConfigKey("attachments.total_bytes", size, default: .string("500MB"), example: .string("100MB"),
                  "The store's bound: the oldest attachments are evicted first (counted)."),
        ConfigKey("attachments.public_url", .string, note: "monitoring.http's own URL", example: .string("https://bridge.example.com:9464"),
                  "The base URL phones and browsers fetch attachments from (/attachments/<token>/<identifier>.<ext> is added)."),
    ]
}
