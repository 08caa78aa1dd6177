import Foundation
import Synchronization

/// A subscription store read through a kept copy: an alert's hand-over asks for every
/// subscription and each of its deliveries for one, and neither should cost a read of the
/// journal (which first commits the journal's open batch) or a round trip to Redis.
///
/// Every change made through this store (the subscription API, a push service's 404 or 410)
/// drops the copy at once. A store other processes change too (Redis: the other replicas'
/// subscription APIs) is read again once the copy is `maxAge` seconds old.
final class SubscriptionSnapshot: SubscriptionStore {
    /// The store itself.
    let base: any SubscriptionStore
    /// How long a copy is used; `nil`: until a change made through this store.
    let maxAge: Double?

    private struct Copy {
        var list: [WebPushSubscription]
        var byEndpoint: [String: WebPushSubscription]
        var readAt: Double
    }

    private struct State {
        var copy: Copy?
        /// Counts the changes, so a read that raced one keeps nothing.
        var generation = 0
    }

    private let state = Mutex(State())

    /// `base` read through a copy, kept for `maxAge` seconds (`nil`: until a change through it).
    init(_ base: any SubscriptionStore, maxAge: Double?) {
        self.base = base
        self.maxAge = maxAge
    }

    func upsert(_ subscription: WebPushSubscription) throws(SubscriptionStoreError) -> UpsertResult {
        defer { changed() }
        return try base.upsert(subscription)
    }

    @discardableResult
    func remove(endpoint: String) throws(SubscriptionStoreError) -> Bool {
        defer { changed() }
        return try base.remove(endpoint: endpoint)
    }

    func all() throws(SubscriptionStoreError) -> [WebPushSubscription] {
        try current().list
    }

    /// From the kept copy's table by endpoint.
    func subscription(endpoint: String) throws(SubscriptionStoreError) -> WebPushSubscription? {
        try current().byEndpoint[endpoint]
    }

    private func changed() {
        state.withLock { s in
            s.copy = nil
            s.generation &+= 1
        }
    }

    private func current(now: Double = Date().timeIntervalSince1970) throws(SubscriptionStoreError) -> Copy {
        let (kept, generation) = state.withLock { s in (s.copy, s.generation) }
        if let kept, maxAge.map({ now - kept.readAt < $0 }) ?? true { return kept }
        let list = try base.all()
        let copy = Copy(list: list, byEndpoint: Dictionary(list.map { ($0.endpoint, $0) }, uniquingKeysWith: { first, _ in first }),
                        readAt: now)
        state.withLock { s in
            if s.generation == generation { s.copy = copy }
        }
        return copy
    }
}
