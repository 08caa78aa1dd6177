import Foundation
import Synchronization
@testable import PushBridge

// What tests read or do to production types that the product itself never needs.

extension MQTTClient {
    /// Shuts the socket down without a DISCONNECT, as a crash or a network failure would
    /// look to the broker (which then publishes the will).
    func abortConnectionForTesting() {
        let fd = core.handle.socketDescriptor
        if fd >= 0 { _ = shutdown(fd, Int32(SHUT_RDWR)) }
    }

    /// Topic aliases established on the current connection (MQTT 5 QoS 0 publishes, `TopicAliases`).
    var topicAliasesInUse: Int { core.topicAliases.establishedCount }

    /// QoS>0 publishes not yet acknowledged by the broker.
    var unacknowledgedCount: Int { core.state.withLock { $0.unacknowledgedCount } }
}

extension Counters {
    /// `true` when `received == finished + inFlight`.
    var satisfiesInvariant: Bool { received == finished + inFlight }
}

extension Journal {
    /// Rows in the database (open and done).
    func rowCount() throws(SQLiteError) -> Int {
        try store.withLock { s throws(SQLiteError) in Int(try s.db.scalar("SELECT count(*) FROM messages") ?? "0") ?? 0 }
    }
}

extension FeedReader {
    /// Whether the connection is parked now.
    var isParked: Bool { state.withLock { $0.parked } }
}

extension ConditionEngine {
    /// Acknowledgements that matched no active condition (or were not one).
    var unknownAcknowledgements: Int { state.withLock { $0.acknowledgements.unknown } }
}

extension StageResult {
    /// The content to publish, or `nil` when suppressed or dropped.
    var deliveredContent: NotificationContent? {
        if case .deliver(let content, _) = verdict { return content }
        return nil
    }
}

extension WebPushFanOut {
    /// The requests that deliver `display` to every stored subscription (see `build`).
    func requests(display: [UInt8], expiration: Int64?, now: Date = Date()) throws(SubscriptionStoreError) -> [WebPushRequest] {
        try build(display: display, expiration: expiration, for: try store.all(), now: now)
    }
}
