/// An answer on `conditions.ack_topic`: `{"alert_id":…}` or `{"route":…,"key":…}`, with
/// optional `"by"` (who) and `"snooze":"30m"` (pause instead of stopping).
package struct Acknowledgement: Sendable, Equatable {
    package var alertID: String?
    package var route: String?
    package var key: String?
    package var by: String?
    package var snooze: Duration?

    package init(alertID: String? = nil, route: String? = nil, key: String? = nil, by: String? = nil, snooze: Duration? = nil) {
        self.alertID = alertID
        self.route = route
        self.key = key
        self.by = by
        self.snooze = snooze
    }

    /// Parses a payload; the reason when it is not an acknowledgement: not a JSON object, an
    /// `alert_id`, `route` or `key` that is not a string, neither a non-empty `alert_id` nor
    /// `route` and `key`, or a `snooze` that is not a duration above zero.
    package static func parse(_ payload: [UInt8]) -> Result<Acknowledgement, AckError> {
        guard case .object(let o)? = try? JSONValue.parse(payload) else {
            return .failure(AckError("not a JSON object"))
        }
        var strings: [String: String] = [:]
        for name in ["alert_id", "route", "key"] {
            guard let v = o[name], !v.isNull else { continue }
            guard let s = v.stringValue else { return .failure(AckError("'\(name)' must be a string, got \(shown(v))")) }
            strings[name] = s
        }
        // Who answered is only shown: a number (a user id) is taken as written.
        let by = o["by"].flatMap { $0.isNull ? nil : $0.stringValue ?? $0.jsonText }
        var ack = Acknowledgement(alertID: strings["alert_id"].flatMap { $0.isEmpty ? nil : $0 }, route: strings["route"],
                                  key: strings["key"], by: by)
        if let s = o["snooze"], !s.isNull {
            guard let text = s.stringValue ?? s.exactInteger.map(String.init), let d = duration(text) else {
                return .failure(AckError("'snooze' must be a duration above zero such as 30m, got \(shown(s))"))
            }
            ack.snooze = d
        }
        if ack.alertID == nil && (ack.route == nil || ack.key == nil) {
            return .failure(AckError("needs a non-empty 'alert_id', or 'route' and 'key'"))
        }
        return .success(ack)
    }

    /// A value as JSON, cut to 60 characters (it goes into a log line and a dead letter).
    private static func shown(_ v: JSONValue) -> String {
        let text = v.jsonText
        return text.count > 60 ? String(text.prefix(59)) + "…" : text
    }

    /// A snooze duration as written (`30m`, `1h`, `90s`, bare seconds); `nil` when it is not one.
    package static func duration(_ text: String) -> Duration? {
        guard let d = DurationParser.parse(text), d > .zero else { return nil }
        return d
    }

    /// `30m`: a duration as the config writes it.
    package static func text(_ d: Duration) -> String { d.text }

    /// The payload `pushbridge ack` publishes.
    package var payload: [UInt8] {
        var o = JSONObject()
        if let alertID { o["alert_id"] = .string(alertID) }
        if let route { o["route"] = .string(route) }
        if let key { o["key"] = .string(key) }
        if let by { o["by"] = .string(by) }
        if let snooze { o["snooze"] = .string(snooze.text) }
        var bytes: [UInt8] = []
        JSONValue.object(o).write(into: &bytes)
        return bytes
    }
}

/// Why a payload on the ack topic is not an acknowledgement.
package struct AckError: Error, Sendable, Equatable, CustomStringConvertible {
    package var description: String
    init(_ description: String) { self.description = description }
}
