/// The delivery layer's event counts at one moment: the stats' `delivery` object.
package struct DeliveryCounts: Sendable, Equatable {
    /// QoS 0 messages dropped because every place was taken.
    package var qos0Dropped = 0
    /// Publishes that could not be made (and will not be retried).
    package var publishFailed = 0
    /// Publishes the broker refused, on both connections (`MQTTClient.refusedPublishCount`).
    package var publishRefused = 0
    /// Broker redeliveries of journaled messages recognized and skipped.
    package var redeliveriesSkipped = 0
    /// Journal entries replayed at start.
    package var replayed = 0
    /// Messages recorded while the journal held `max_messages` open ones.
    package var journalOverflows = 0
    /// Journal writes that failed (the message was processed without the journal).
    package var journalErrors = 0

    /// All zero counts.
    package init() {}

    /// The count of `event`.
    package subscript(event: DeliveryEvent) -> Int {
        switch event {
        case .journalErrors: journalErrors
        case .journalOverflows: journalOverflows
        case .publishFailed: publishFailed
        case .publishRefused: publishRefused
        case .qos0Dropped: qos0Dropped
        case .redeliveriesSkipped: redeliveriesSkipped
        case .replayed: replayed
        }
    }
}

/// One event counted in `DeliveryCounts`; the raw value is its name on the wire (the stats'
/// `delivery` keys, the `event` label of `pushbridge_delivery_events_total`).
package enum DeliveryEvent: String, Sendable, CaseIterable {
    case journalErrors = "journal_errors"
    case journalOverflows = "journal_overflows"
    case publishFailed = "publish_failed"
    case publishRefused = "publish_refused"
    case qos0Dropped = "qos0_dropped"
    case redeliveriesSkipped = "redeliveries_skipped"
    case replayed

    /// Every event, sorted by wire name: the order the stats JSON and `/metrics` write them in.
    package static let written: [DeliveryEvent] = allCases.sorted { $0.rawValue < $1.rawValue }
}

extension DeliveryCounters {
    /// The counts now, with `publishRefused` (the connections count those themselves).
    func counts(publishRefused: Int) -> DeliveryCounts {
        var c = DeliveryCounts()
        c.qos0Dropped = qos0Dropped.load(ordering: .relaxed)
        c.publishFailed = publishFailures.load(ordering: .relaxed)
        c.publishRefused = publishRefused
        c.redeliveriesSkipped = redeliveriesSkipped.load(ordering: .relaxed)
        c.replayed = replayed.load(ordering: .relaxed)
        c.journalOverflows = journalOverflows.load(ordering: .relaxed)
        c.journalErrors = journalErrors.load(ordering: .relaxed)
        return c
    }
}
