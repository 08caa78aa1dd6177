/// The message a route's Home Assistant event entity receives for each delivered alert.
///
/// `{"event_type":"delivered","id":…,"title":…,"subtitle":…,"body":…,
/// "interruption_level":…,"thread_id":…,"collapse_id":…,"sound_critical":…,
/// "source_topic":…,"route":…,"alert_id":…,"attachments":[{"identifier","type","size","url"}]}`;
/// keys without a value are left out, `sound_critical` is there (`true`) only for Apple's
/// critical-alert sound, and `attachments` only when the alert has some, each as in the
/// display message (`url` absent when the bridge has no address to give). Home Assistant keeps
/// every key but `event_type` as an attribute of the event entity.
enum AlertEvent {
    /// The one event type of a route's event entity.
    static let eventType = "delivered"
    /// The lifecycle's event types, fired by a condition route's event entity too.
    static let conditionEventTypes = ConditionEventKind.allCases.map(\.rawValue)

    /// The event JSON of a condition's transition: `{"event_type":"raised","alert_id":…,
    /// "collapse_id":…,"key":…,"route":…,"source_topic":…,"repeat":…,"step":…}`.
    package static func payload(_ event: ConditionEvent) -> [UInt8] {
        var w = JSONWriter(capacity: 256)
        w.beginObject()
        w.add("event_type", event.kind.rawValue)
        w.add("alert_id", event.record.alertID)
        w.add("collapse_id", event.collapseID)
        w.add("key", event.record.key)
        w.add("route", event.record.route)
        w.add("source_topic", event.record.topic)
        w.add("repeat", .int(Int64(event.record.repeats)))
        w.add("step", .int(Int64(event.record.step)))
        if let by = event.record.acknowledgedBy { w.add("by", by) }
        w.endObject()
        return w.bytes
    }

    /// The event JSON for a delivered `request` that arrived on `sourceTopic` and matched `route`.
    /// `alertID`: the condition's alert id, for a condition route's notification (the
    /// blueprint's Acknowledge and Snooze actions carry it back).
    package static func payload(_ request: NotificationRequest, route: String, sourceTopic: String,
                               alertID: String? = nil) -> [UInt8] {
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
        w.add("alert_id", alertID)
        if !c.attachments.isEmpty { w.add("attachments", c.attachmentsValue) }
        w.endObject()
        return w.bytes
    }
}
