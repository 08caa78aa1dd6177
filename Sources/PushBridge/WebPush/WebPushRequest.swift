import Foundation

/// One push message as an HTTP request: `POST url` with `headers` and the encrypted `body`.
///
/// Pure apart from the random ephemeral key and salt of the encryption: building it sends nothing
/// (the output's HTTP client does).
package struct WebPushRequest: Sendable, Equatable {
    /// The subscription's endpoint.
    package let url: String
    /// `TTL`, `Urgency`, `Topic` (when there is a collapse id), `Content-Encoding`,
    /// `Content-Type`, `Authorization`, in that order.
    package let headers: [(name: String, value: String)]
    /// The aes128gcm body.
    package let body: [UInt8]

    /// The value of header `name` (case-insensitive), or `nil`.
    package func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    package static func == (a: WebPushRequest, b: WebPushRequest) -> Bool {
        a.url == b.url && a.body == b.body && a.headers.map(\.name) == b.headers.map(\.name)
            && a.headers.map(\.value) == b.headers.map(\.value)
    }

    /// What the request is made of besides the subscription and the payload.
    struct Options: Sendable {
        /// The VAPID key that signs.
        var vapid: VAPIDKey
        /// `webpush.subject`: `mailto:…` or an `https:` URL.
        var subject: String
        /// `apns-expiration` of the request (UNIX seconds; 0: now or never; `nil`: not set).
        var expiration: Int64?
        /// The request's interruption level (`passive`, `active`, `time-sensitive`, `critical`).
        var interruptionLevel: String?
        /// The collapse id, for `Topic`.
        var collapseID: String?
        /// What the output keeps between messages (tokens, subscription keys); `nil`: nothing.
        var cache: WebPushCache?
    }

    /// Why no request could be made for a subscription.
    package enum Failure: Error, Equatable, CustomStringConvertible {
        case encryption(PayloadEncryption.Failure)
        case vapid(VAPIDError)

        package var description: String {
            switch self {
            case .encryption(let e): e.description
            case .vapid(let e): e.description
            }
        }
    }

    /// The request that delivers `payload` (the service worker's JSON, see `WebPushPayload`)
    /// to `subscription`, at `now`.
    static func build(subscription: WebPushSubscription, payload: [UInt8], options: Options,
                             now: Date = Date()) throws(Failure) -> WebPushRequest {
        let body: [UInt8]
        if let cache = options.cache {
            let userAgent: P256Key
            do { userAgent = try cache.peer(subscription.p256dh) } catch {
                throw .encryption(.badSubscriptionKeys("p256dh is not an uncompressed P-256 point"))
            }
            do {
                body = try PayloadEncryption.encrypt(payload, userAgent: userAgent, p256dh: subscription.p256dh, auth: subscription.auth,
                                                     keys: cache.keys)
            } catch { throw .encryption(error) }
        } else {
            do { body = try PayloadEncryption.encrypt(payload, p256dh: subscription.p256dh, auth: subscription.auth) } catch {
                throw .encryption(error)
            }
        }
        let authorization: String
        do throws(VAPIDError) {
            if let cache = options.cache {
                authorization = try cache.authorization(vapid: options.vapid, endpoint: subscription.endpoint,
                                                        subject: options.subject, now: now)
            } else {
                authorization = try options.vapid.authorization(endpoint: subscription.endpoint, subject: options.subject, now: now)
            }
        } catch { throw .vapid(error) }
        var headers: [(name: String, value: String)] = [
            ("TTL", String(WebPushHeaders.ttl(expiration: options.expiration, now: Int64(now.timeIntervalSince1970)))),
            ("Urgency", WebPushHeaders.urgency(interruptionLevel: options.interruptionLevel)),
        ]
        if let topic = WebPushHeaders.topic(collapseID: options.collapseID) { headers.append(("Topic", topic)) }
        headers += [("Content-Encoding", "aes128gcm"), ("Content-Type", "application/octet-stream"),
                    ("Authorization", authorization)]
        return WebPushRequest(url: subscription.endpoint, headers: headers, body: body)
    }

    /// What a push service's answer means for the subscription (RFC 8030 section 8.3 and 7.3).
    package enum Verdict: Equatable, Sendable {
        /// 2xx: the push service took the message.
        case accepted
        /// 404 or 410: the subscription is gone; remove it and do not retry.
        case subscriptionGone
        /// 429 or 5xx: try again later (honouring `Retry-After`).
        case retry
        /// Any other answer: the message is refused (dead letter).
        case rejected
    }

    /// The verdict for HTTP `status`.
    package static func verdict(status: Int) -> Verdict {
        switch status {
        case 200..<300: .accepted
        case 404, 410: .subscriptionGone
        case 429, 500..<600: .retry
        default: .rejected
        }
    }
}
