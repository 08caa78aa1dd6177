/// The message a route's event entity receives for each delivered alert (SPEC section 11).
///
/// `{"event_type":"delivered","id":…,"title":…,"subtitle":…,"body":…,
/// "interruption_level":…,"thread_id":…,"collapse_id":…,"sound_critical":…,
/// "source_topic":…,"route":…}`; keys without a value are left out, and
/// `sound_critical` is there (`true`) only for Apple's critical-alert sound, as in the
/// display message. Home Assistant keeps
/// every key but `event_type` as an attribute of the event entity.
public enum AlertEvent {
    /// The one event type of a route's event entity.
    public static let eventType = "delivered"

    /// The event JSON for a delivered `request` that arrived on `sourceTopic` and matched `route`.
    public static func payload(_ request: NotificationRequest, route: String, sourceTopic: String) -> [UInt8] {
        let c = request.content
        var w = JSONWriter(capacity: 384)
        w.beginObject()
        w.add("event_type", eventType)
        w.add("id", request.id)
        w.add("title", c.title)
        w.add("subtitle", c.subtitle)
        w.add("body", c.body)
        w.add("interruption_level", c.interruptionLevel)
        w.add("thread_id", c.threadID)
        w.add("collapse_id", request.collapseID)
        if c.soundCritical { w.add("sound_critical", .bool(true)) }
        w.add("source_topic", sourceTopic)
        w.add("route", route)
        w.endObject()
        return w.bytes
    }
}
