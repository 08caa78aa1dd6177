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

    /// Parses a payload; `nil` with the reason when it is not an acknowledgement.
    package static func parse(_ payload: [UInt8]) -> Result<Acknowledgement, AckError> {
        guard case .object(let o)? = try? JSONValue.parse(payload) else {
            return .failure(AckError("not a JSON object"))
        }
        var ack = Acknowledgement()
        ack.alertID = o["alert_id"]?.stringValue
        ack.route = o["route"]?.stringValue
        ack.key = o["key"]?.stringValue
        ack.by = o["by"]?.stringValue
        if let s = o["snooze"], !s.isNull {
            guard let text = s.stringValue ?? s.exactInteger.map(String.init), let d = DurationParser.parse(text),
                  d > .zero else {
                return .failure(AckError("'snooze' must be a duration such as 30m"))
            }
            ack.snooze = d
        }
        if ack.alertID == nil && (ack.route == nil || ack.key == nil) {
            return .failure(AckError("needs 'alert_id', or 'route' and 'key'"))
        }
        return .success(ack)
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
