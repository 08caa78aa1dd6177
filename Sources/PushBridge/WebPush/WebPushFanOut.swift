import Foundation

/// One `webpush` output's work for one alert, without the sending: a request per subscription,
/// and what the push service's answer does to the subscription list.
///
/// The output's HTTP client sends each request (POST `url`, `headers`, `body`) and hands the
/// status back to `answered`, which removes a subscription the push service says is gone
/// (404/410) and returns the verdict (retry with backoff on `.retry`, dead letter on `.rejected`).
struct WebPushFanOut: Sendable {
    /// Where the subscriptions are.
    let store: any SubscriptionStore
    /// The output's VAPID key.
    let vapid: VAPIDKey
    /// `webpush.subject`.
    let subject: String
    /// Tokens and subscription keys kept between messages.
    let cache: WebPushCache

    /// The fan-out of an output whose subscriptions are in `store`, signing with `vapid` for `subject`.
    init(store: any SubscriptionStore, vapid: VAPIDKey, subject: String, cache: WebPushCache = WebPushCache()) {
        self.store = store
        self.vapid = vapid
        self.subject = subject
        self.cache = cache
    }

    /// The requests that deliver `display` (a display message in `format: json`, or a
    /// condition's withdraw) to `subscriptions`: `Topic` from its `collapse_id`, `Urgency`
    /// from its `interruption_level`, `TTL` from `expiration` (the request's `apns-expiration`).
    /// Empty when `display` is neither kind of message. A subscription whose keys cannot be
    /// encrypted for (it passed the API's checks, so only a damaged store) is removed.
    func build(display: [UInt8], expiration: Int64?, for subscriptions: [WebPushSubscription],
                       now: Date) throws(SubscriptionStoreError) -> [WebPushRequest] {
        guard let message = try? JSONValue.parse(display) else { return [] }
        return try build(message: message, expiration: expiration, for: subscriptions, now: now)
    }

    /// `build` of the display message already parsed.
    func build(message: JSONValue, expiration: Int64?, for subscriptions: [WebPushSubscription],
               now: Date) throws(SubscriptionStoreError) -> [WebPushRequest] {
        guard let payload = WebPushPayload.from(message: message) else { return [] }
        let options = WebPushRequest.Options(vapid: vapid, subject: subject, expiration: expiration,
                                             interruptionLevel: message["interruption_level"]?.stringValue,
                                             collapseID: message["collapse_id"]?.stringValue, cache: cache)
        var out: [WebPushRequest] = []
        for subscription in subscriptions {
            do {
                out.append(try WebPushRequest.build(subscription: subscription, payload: payload, options: options, now: now))
            } catch .encryption(.badSubscriptionKeys) {
                try store.remove(endpoint: subscription.endpoint)
            } catch {
                continue   // a VAPID or OpenSSL failure for this one endpoint: the others still go
            }
        }
        return out
    }

    /// The request that delivers `display` to the subscription with `endpoint` alone (an output
    /// sends each subscription's delivery on its own); `nil` when that subscription is gone or
    /// no request can be made for it (see `build`).
    package func request(display: [UInt8], expiration: Int64?, endpoint: String, now: Date = Date()) throws(SubscriptionStoreError) -> WebPushRequest? {
        guard let message = try? JSONValue.parse(display) else { return nil }
        return try request(message: message, expiration: expiration, endpoint: endpoint, now: now)
    }

    /// `request(display:…)` of the display message already parsed.
    func request(message: JSONValue, expiration: Int64?, endpoint: String, now: Date = Date()) throws(SubscriptionStoreError) -> WebPushRequest? {
        guard let subscription = try store.subscription(endpoint: endpoint) else { return nil }
        return try build(message: message, expiration: expiration, for: [subscription], now: now).first
    }

    /// What the answer `status` to the request for `endpoint` means; a 404 or 410 removes the subscription.
    @discardableResult
    package func answered(endpoint: String, status: Int) throws(SubscriptionStoreError) -> WebPushRequest.Verdict {
        let verdict = WebPushRequest.verdict(status: status)
        if verdict == .subscriptionGone { try store.remove(endpoint: endpoint) }
        return verdict
    }
}
