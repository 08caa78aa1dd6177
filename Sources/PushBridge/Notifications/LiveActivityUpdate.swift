/// One ActivityKit push: the `aps` keys that start, update or end a Live Activity
/// (Apple, "Starting and updating Live Activities with ActivityKit push notifications").
public struct LiveActivityUpdate: Sendable, Equatable {
    /// `aps.event`.
    public enum Event: String, Sendable, CaseIterable {
        case start, update, end
    }

    public var event: Event
    /// `aps.timestamp`: when the content state was made, UNIX seconds (always sent).
    public var timestamp: Int64
    /// `aps.content-state`: the Live Activity's dynamic content.
    public var contentState: JSONObject
    /// `aps.stale-date`, UNIX seconds; `nil`: not sent.
    public var staleDate: Int64? = nil
    /// `aps.dismissal-date`, UNIX seconds (sent with `end`); `nil`: not sent.
    public var dismissalDate: Int64? = nil
    /// `aps.attributes-type` (with `start`: push-to-start); `nil`: not sent.
    public var attributesType: String? = nil
    /// `aps.attributes`, sent with `attributesType`.
    public var attributes: JSONObject? = nil

    public init(event: Event, timestamp: Int64, contentState: JSONObject) {
        self.event = event
        self.timestamp = timestamp
        self.contentState = contentState
    }

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
