import Synchronization

/// Where a Web Push output keeps its browsers' subscriptions: the journal's database
/// (`JournalSubscriptionStore`) or, without a journal, memory (`MemorySubscriptionStore`).
///
/// Keyed by endpoint: subscribing again with the same endpoint replaces the keys (a browser
/// that re-subscribes after a key change). Bounded: at most `limit` subscriptions.
protocol SubscriptionStore: Sendable {
    /// Adds or replaces the subscription with `subscription.endpoint`.
    func upsert(_ subscription: WebPushSubscription) throws(SubscriptionStoreError) -> UpsertResult
    /// Removes the subscription with `endpoint` (unsubscribe, or a 404/410 answer); `true` when there was one.
    @discardableResult
    func remove(endpoint: String) throws(SubscriptionStoreError) -> Bool
    /// Every subscription, in the order they were first added.
    func all() throws(SubscriptionStoreError) -> [WebPushSubscription]
    /// The subscription with `endpoint`, or `nil` when there is none (any more).
    func subscription(endpoint: String) throws(SubscriptionStoreError) -> WebPushSubscription?
}

extension SubscriptionStore {
    /// Looked up in `all()`; a store that keeps them by endpoint answers directly.
    func subscription(endpoint: String) throws(SubscriptionStoreError) -> WebPushSubscription? {
        try all().first { $0.endpoint == endpoint }
    }
}

/// What `upsert` did.
enum UpsertResult: Equatable, Sendable {
    /// A new endpoint.
    case added
    /// An endpoint already there, its keys replaced.
    case replaced
    /// A new endpoint, refused: the store holds its limit.
    case full
}

/// A subscription store that failed (the database's words).
package struct SubscriptionStoreError: Error, Equatable, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}

/// Subscriptions in memory (a bridge without `journal`): lost when the process ends, so the
/// browsers subscribe again (the page does on every visit).
final class MemorySubscriptionStore: SubscriptionStore {
    /// The most subscriptions kept.
    let limit: Int
    private let entries = Mutex<[WebPushSubscription]>([])

    /// An empty store of at most `limit` subscriptions.
    init(limit: Int = 1000) { self.limit = limit }

    func upsert(_ subscription: WebPushSubscription) -> UpsertResult {
        entries.withLock { list in
            if let i = list.firstIndex(where: { $0.endpoint == subscription.endpoint }) {
                list[i] = subscription
                return .replaced
            }
            guard list.count < limit else { return .full }
            list.append(subscription)
            return .added
        }
    }

    @discardableResult
    func remove(endpoint: String) -> Bool {
        entries.withLock { list in
            guard let i = list.firstIndex(where: { $0.endpoint == endpoint }) else { return false }
            list.remove(at: i)
            return true
        }
    }

    func all() -> [WebPushSubscription] { entries.withLock { $0 } }
}
