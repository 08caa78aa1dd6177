/// The delivery layer's event counts at one moment: the stats' `delivery` object.
struct DeliveryCounts: Sendable, Equatable {
    private var counts = [Int](repeating: 0, count: DeliveryEvent.allCases.count)

    /// All zero counts.
    init() {}

    /// The count of `event`.
    subscript(event: DeliveryEvent) -> Int {
        get { counts[event.index] }
        set { counts[event.index] = newValue }
    }
}

/// One event counted in `DeliveryCounts`; the raw value is its name on the wire (the stats'
/// `delivery` keys, the `event` label of `pushbridge_delivery_events_total`).
package enum DeliveryEvent: String, Sendable, CaseIterable {
    /// Journal writes that failed (the message was processed without the journal).
    case journalErrors = "journal_errors"
    /// Messages recorded while the journal held `max_messages` open ones.
    case journalOverflows = "journal_overflows"
    /// Publishes that could not be made (and will not be retried).
    case publishFailed = "publish_failed"
    /// Publishes the broker refused, on both connections (`MQTTClient.refusedPublishCount`).
    case publishRefused = "publish_refused"
    /// QoS 0 messages dropped because every place was taken.
    case qos0Dropped = "qos0_dropped"
    /// Broker redeliveries of journaled messages recognized and skipped.
    case redeliveriesSkipped = "redeliveries_skipped"
    /// Journal entries replayed at start.
    case replayed

    /// The event's place in `allCases` (its slot in `DeliveryCounts`).
    var index: Int { Self.allCases.firstIndex(of: self)! }

    /// Every event, sorted by wire name: the order the stats JSON and `/metrics` write them in.
    package static let written: [DeliveryEvent] = allCases.sorted { $0.rawValue < $1.rawValue }
}
