/// `digest:` on a route: a storm of its alerts becomes one notification (docs/configuration.md,
/// "routes[].digest"). Per rendered `key`, a window opens with the first alert and lasts
/// `window`; its first `max` alerts are delivered one by one, the rest are held and summarized
/// in one notification when the window ends.
struct DigestConfig: Sendable {
    /// How long a window lasts from its first alert.
    var window: Duration
    /// Alerts of a window delivered one by one before the rest are held (0: every one is held).
    var max = 3
    /// Which window an alert belongs to (default `{{ route }}`: one window per route).
    var key: Template
    /// The summary's title; `nil`: "N more: <route>".
    var title: Template? = nil
    /// The summary's body; `nil`: the held alerts' titles joined by ", ".
    var body: Template? = nil
    /// Where `digest:` is written (for warnings made after the route is read).
    var mark: YAMLMark? = nil

    /// The default window (5 minutes).
    static let defaultWindow = Duration.seconds(300)

    /// The digest in one line, as `pushbridge check` prints it.
    var summary: String {
        "per key \"\(key.source)\" a window of \(window.text): the first \(max) delivered one by one, the rest held and sent as one summary"
            + (title.map { " titled \"\($0.source)\"" } ?? "") + (body.map { " with body \"\($0.source)\"" } ?? "")
            + "; critical alerts are never held"
    }
}
