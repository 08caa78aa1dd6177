/// One ActivityKit push: the `aps` keys that start, update or end a Live Activity
/// (Apple, "Starting and updating Live Activities with ActivityKit push notifications").
struct LiveActivityUpdate: Sendable, Equatable {
    /// `aps.event`.
    package enum Event: String, Sendable, CaseIterable {
        case start, update, end
    }

    package var event: Event
    /// `aps.timestamp`: when the content state was made, UNIX seconds (always sent).
    var timestamp: Int64
    /// `aps.content-state`: the Live Activity's dynamic content.
    var contentState: JSONObject
    /// `aps.stale-date`, UNIX seconds; `nil`: not sent.
    var staleDate: Int64? = nil
    /// `aps.dismissal-date`, UNIX seconds (sent with `end`); `nil`: not sent.
    var dismissalDate: Int64? = nil
    /// `aps.attributes-type` (with `start`: push-to-start); `nil`: not sent.
    var attributesType: String? = nil
    /// `aps.attributes`, sent with `attributesType`.
    var attributes: JSONObject? = nil

    /// Adds the keys to `aps`.
    func write(into aps: inout JSONObject) {
        aps["event"] = .string(event.rawValue)
        aps["timestamp"] = .int(timestamp)
        aps["content-state"] = .object(contentState)
        if let staleDate { aps["stale-date"] = .int(staleDate) }
        if let dismissalDate { aps["dismissal-date"] = .int(dismissalDate) }
        if let attributesType {
            aps["attributes-type"] = .string(attributesType)
            aps["attributes"] = .object(attributes ?? [:])
        }
    }
}
