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
    /// The stored files of the JSON's `attachments`, in their order, as the attachment store
    /// names them (`<token>/<identifier>.<ext>`): the JSON is public and carries no path, so
    /// a kind that sends the bytes themselves (ntfy's upload) finds them through these, also
    /// after a restart (they are stored beside the JSON in the journal).
    let files: [String]
    /// Outputs that get it besides those of its route (an escalation step's `outputs`),
    /// whatever their own `routes`.
    var extraOutputs: [String] = []

    /// A delivered alert: `displayJSON` is `DisplayRenderer.displayJSON` of its request;
    /// `files` the store's keys of its attachments' files.
    init(alertID: String, route: String, displayJSON: [UInt8], files: [String] = []) {
        kind = .alert
        key = alertID
        self.route = route
        json = displayJSON
        self.files = files
    }

    /// An item as a journal row keeps it (handed on to a fallback): kind and route read from its JSON.
    init(key: String, json: [UInt8], files: [String]) {
        let message = OutputMessage(json: json)
        kind = message?.isWithdraw == true ? .withdraw : .alert
        self.key = key
        route = message?.route ?? ""
        self.json = json
        self.files = files
    }

    /// A cleared condition's withdraw message, as the display topic gets it (`Withdrawal.json`).
    init(withdrawal w: Withdrawal) {
        kind = .withdraw
        key = w.alertID + "/withdraw"
        route = w.route
        json = w.json
        files = []
    }
}

/// An item's JSON parsed, as the output kinds read it.
struct OutputMessage: Sendable {
    let value: JSONValue
    let json: [UInt8]
    /// The item's `files` (`OutputItem.files`).
    let files: [String]

    /// `nil` when the stored bytes are not a JSON object (a damaged row).
    init?(json: [UInt8], files: [String] = []) {
        guard let v = try? JSONValue.parse(json), case .object = v else { return nil }
        value = v
        self.json = json
        self.files = files
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
    /// The first of the JSON's `attachments` (`identifier`, `type`, `size`, `url`) with its
    /// stored file's key (`<token>/<identifier>.<ext>`) when the item kept one.
    var firstAttachment: (value: JSONValue, file: String?)? {
        guard case .array(let list)? = value["attachments"], let first = list.first else { return nil }
        let identifier = first["identifier"]?.stringValue ?? ""
        return (first, files.first { $0.split(separator: "/").last?.split(separator: ".").first.map(String.init) == identifier })
    }

    /// `user_info.url` when it is an http(s) URL.
    var clickURL: String? { Self.httpURL(value["user_info"]?["url"]?.stringValue) }

    /// `text` when it is an http(s) URL with no space or control character (fit for a header).
    static func httpURL(_ text: String?) -> String? {
        guard let url = text else { return nil }
        let lower = url.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://"), url.count > 8,
              !url.utf8.contains(where: { $0 < 0x21 || $0 == 0x7F }) else { return nil }
        return url
    }
}
