import Foundation
import Testing
@testable import PushBridge

/// What a `webpush` output keeps between messages (the VAPID token per push service, the
/// subscriptions' keys) and the subscription store read through a kept copy.
@Suite("Web Push: kept tokens, keys and subscriptions")
struct WebPushCacheTests {
    let vapid = VAPIDKey(key: try! P256Key.generate())

    /// The JWT's claims of an `Authorization: vapid t=…, k=…` value.
    func claims(_ header: String) throws -> JSONValue {
        let token = try #require(header.split(separator: " ").dropFirst().first).dropFirst(2).dropLast()  // "t=…,"
        let payload = try #require(token.split(separator: ".").dropFirst().first)
        return try JSONValue.parse(try #require(Base64URL.decode(String(payload))))
    }

    @Test func oneTokenPerPushServiceWhileHalfOfItsLifeIsLeft() throws {
        let cache = WebPushCache()
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        let first = try cache.authorization(vapid: vapid, endpoint: "https://fcm.googleapis.com/fcm/send/a", subject: "mailto:a@b.c", now: t0)
        // Another subscription on the same service, an hour later: the same token.
        let same = try cache.authorization(vapid: vapid, endpoint: "https://fcm.googleapis.com/fcm/send/b", subject: "mailto:a@b.c",
                                           now: t0 + 3600)
        #expect(same == first)
        #expect(try claims(first)["aud"]?.stringValue == "https://fcm.googleapis.com")
        let start: Int64 = 1_800_000_000, lifetime: Int64 = 12 * 3600
        #expect(try claims(first)["exp"] == .int(start + lifetime))
        // Another service, or another subject: a token of its own.
        let other = try cache.authorization(vapid: vapid, endpoint: "https://updates.push.services.mozilla.com/wpush/v2/x",
                                            subject: "mailto:a@b.c", now: t0)
        #expect(other != first)
        #expect(try claims(other)["aud"]?.stringValue == "https://updates.push.services.mozilla.com")
        #expect(try cache.authorization(vapid: vapid, endpoint: "https://fcm.googleapis.com/fcm/send/a", subject: "https://b.c",
                                        now: t0) != first)
        // Less than half of its 12 hours left: signed again, valid 12 hours from then.
        let later = t0 + 6 * 3600 + 1
        let renewed = try cache.authorization(vapid: vapid, endpoint: "https://fcm.googleapis.com/fcm/send/a", subject: "mailto:a@b.c", now: later)
        #expect(renewed != first)
        let renewedAt: Int64 = start + 6 * 3600 + 1
        #expect(try claims(renewed)["exp"] == .int(renewedAt + lifetime))
        // A clock set back (a token that would be valid for more than its lifetime): signed again.
        let back = try cache.authorization(vapid: vapid, endpoint: "https://fcm.googleapis.com/fcm/send/a", subject: "mailto:a@b.c",
                                           now: t0 - 3600)
        let backAt: Int64 = start - 3600
        #expect(try claims(back)["exp"] == .int(backAt + lifetime))
        #expect(throws: VAPIDError.self) { try cache.authorization(vapid: vapid, endpoint: "ftp://x/y", subject: "mailto:a@b.c", now: t0) }
    }

    @Test func aSubscriptionsKeyIsReadOnceAndABadOneIsRefused() throws {
        let cache = WebPushCache()
        let browser = try P256Key.generate()
        let first = try cache.peer(browser.publicPoint)
        #expect(try cache.peer(browser.publicPoint) === first)
        #expect(first.publicPoint == browser.publicPoint)
        #expect(throws: CryptoError.self) { try cache.peer([0x04] + [UInt8](repeating: 7, count: 64)) }
    }

    @Test func theEncryptionStillDecryptsWithKeptKeysAndAFreshEphemeralKeyEachTime() throws {
        let cache = WebPushCache()
        let browser = try P256Key.generate()
        let auth = [UInt8](repeating: 9, count: 16)
        let peer = try cache.peer(browser.publicPoint)
        let a = try PayloadEncryption.encrypt(Array("one".utf8), userAgent: peer, p256dh: browser.publicPoint, auth: auth, keys: cache.keys)
        let b = try PayloadEncryption.encrypt(Array("two".utf8), userAgent: peer, p256dh: browser.publicPoint, auth: auth, keys: cache.keys)
        #expect(try PayloadEncryption.decrypt(a, privateKey: browser, auth: auth) == Array("one".utf8))
        #expect(try PayloadEncryption.decrypt(b, privateKey: browser, auth: auth) == Array("two".utf8))
        #expect(a[21..<86] != b[21..<86], "each message has its own ephemeral key (the key id)")
        #expect(a[0..<16] != b[0..<16], "and its own salt")
    }

    func subscription(_ endpoint: String) throws -> WebPushSubscription {
        let browser = try P256Key.generate()
        return WebPushSubscription(endpoint: endpoint, p256dh: browser.publicPoint, auth: [UInt8](repeating: 1, count: 16),
                                   expirationTime: nil, person: nil)
    }

    @Test func aChangeThroughTheSnapshotIsSeenAtOnce() throws {
        let base = MemorySubscriptionStore()
        let store = SubscriptionSnapshot(base, maxAge: nil)
        #expect(try store.all().isEmpty)
        _ = try store.upsert(try subscription("https://push.example/1"))
        #expect(try store.all().map(\.endpoint) == ["https://push.example/1"])
        let replaced = try subscription("https://push.example/1")
        #expect(try store.upsert(replaced) == .replaced)
        #expect(try store.subscription(endpoint: "https://push.example/1")?.p256dh == replaced.p256dh, "new keys at once")
        #expect(try store.remove(endpoint: "https://push.example/1"))
        #expect(try store.subscription(endpoint: "https://push.example/1") == nil)
        // A change made behind its back (no maxAge: nothing else writes) is not looked for.
        _ = base.upsert(try subscription("https://push.example/2"))
        #expect(try store.all().isEmpty)
    }

    @Test func aSharedStoreIsReadAgainOnceTheCopyIsOld() async throws {
        let base = MemorySubscriptionStore()
        let store = SubscriptionSnapshot(base, maxAge: 0.2)
        #expect(try store.all().isEmpty)
        _ = base.upsert(try subscription("https://push.example/other-replica"))   // another replica's API
        try await eventually("the other replica's subscription") { try store.all().count == 1 }
    }
}
