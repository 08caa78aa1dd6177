/// What the message path hands to the outputs: a delivered alert (its display message,
/// always as JSON) or a condition's withdraw (its JSON: `type` "withdraw", `alert_id`,
/// `collapse_id`, `source_topic`, `route`, `reason`).
struct OutputItem: Sendable {
    /// The two item kinds.
    package enum Kind: String, Sendable {
        case alert, withdraw
    }

    package let kind: Kind
    /// Unique per item and stable across a replay: the alert's id; `<alert_id>/withdraw`.
    package let key: String
    /// The route it came from (outputs choose by route).
    package let route: String
    /// The JSON as stored and sent.
    package let json: [UInt8]

    /// A delivered alert: `displayJSON` is `DisplayRenderer.displayJSON` of its request.
    init(alertID: String, route: String, displayJSON: [UInt8]) {
        kind = .alert
        key = alertID
        self.route = route
        json = displayJSON
    }

    /// A cleared condition's withdraw message, as the display topic gets it (`Withdrawal.json`).
    init(withdrawal w: Withdrawal) {
        kind = .withdraw
        key = w.alertID + "/withdraw"
        route = w.route
        json = w.json
    }
}

/// An item's JSON parsed, as the output kinds read it.
struct OutputMessage: Sendable {
    let value: JSONValue
    let json: [UInt8]

    /// `nil` when the stored bytes are not a JSON object (a damaged row).
    init?(json: [UInt8]) {
        guard let v = try? JSONValue.parse(json), case .object = v else { return nil }
        value = v
        self.json = json
    }

    var isWithdraw: Bool { value["type"]?.stringValue == "withdraw" }
    func text(_ key: String) -> String? { value[key]?.stringValue }
    var title: String { text("title") ?? "" }
    var body: String { text("body") ?? "" }
    var route: String { text("route") ?? "" }
    var sourceTopic: String { text("source_topic") ?? "" }
    var collapseID: String? { text("collapse_id") }
    var interruptionLevel: String? { text("interruption_level") }
    var category: String? { text("category") }
    /// The alert's id (a withdraw names the alert it withdraws).
    var alertID: String { text(isWithdraw ? "alert_id" : "id") ?? "" }
    /// `user_info.url` when it is an http(s) URL.
    var clickURL: String? {
        guard let url = value["user_info"]?["url"]?.stringValue else { return nil }
        let lower = url.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://"), url.count > 8,
              !url.utf8.contains(where: { $0 < 0x21 || $0 == 0x7F }) else { return nil }
        return url
    }
}
