import Foundation
import Testing
@testable import PushBridge

/// Web Push subscriptions in a Redis hash (`state.redis`): what one replica's page stored,
/// every replica sends to; keyed by endpoint, in the order first added, bounded.
@Suite("Web Push on Redis: the subscription store shared by the replicas")
struct RedisSubscriptionStoreTests {
    static func subscription(_ n: Int, person: String? = nil, auth: UInt8 = 1) -> WebPushSubscription {
        WebPushSubscription(endpoint: "https://push.example.com/s/\(n)", p256dh: [4] + [UInt8](repeating: UInt8(n), count: 64),
                            auth: [UInt8](repeating: auth, count: 16), expirationTime: n % 2 == 0 ? nil : 1_900_000_000_000,
                            person: person)
    }

    static func stores(_ redis: TestRedis, limit: Int = 1000) -> (RedisSubscriptionStore, RedisSubscriptionStore, StateHealth) {
        let key = uniqueName("pb") + ":webpush:browsers"
        let health = StateHealth(backend: "redis", shown: "test")
        let make = {
            RedisSubscriptionStore(key: key, connection: RedisConnection(address: RedisAddress(place: .tcp(host: "127.0.0.1", port: redis.port))),
                                   health: health, limit: limit)
        }
        return (make(), make(), health)
    }

    @Test("a subscription stored through one replica is sent to by the other; replaced keys keep the order; removed for both")
    func sharedByReplicas() throws {
        let redis = try TestRedis()
        let (a, b, health) = Self.stores(redis)
        #expect(try a.upsert(Self.subscription(1, person: "alice")) == .added)
        #expect(try b.upsert(Self.subscription(2)) == .added)
        #expect(try a.upsert(Self.subscription(3)) == .added)
        #expect(try b.all() == [Self.subscription(1, person: "alice"), Self.subscription(2), Self.subscription(3)])
        // The browser of 1 subscribed again with new keys, through the other replica.
        #expect(try b.upsert(Self.subscription(1, auth: 9)) == .replaced)
        #expect(try a.all() == [Self.subscription(1, auth: 9), Self.subscription(2), Self.subscription(3)])
        #expect(try b.remove(endpoint: Self.subscription(2).endpoint))
        #expect(try !a.remove(endpoint: Self.subscription(2).endpoint))
        #expect(try a.all().map(\.endpoint) == [Self.subscription(1).endpoint, Self.subscription(3).endpoint])
        #expect((health.operations["webpush_write"]?.ok ?? 0) == 6)
    }

    @Test("at most limit subscriptions; a known endpoint is still replaced when full")
    func bounded() throws {
        let redis = try TestRedis()
        let (a, _, _) = Self.stores(redis, limit: 2)
        #expect(try a.upsert(Self.subscription(1)) == .added)
        #expect(try a.upsert(Self.subscription(2)) == .added)
        #expect(try a.upsert(Self.subscription(3)) == .full)
        #expect(try a.upsert(Self.subscription(2, auth: 5)) == .replaced)
        #expect(try a.all().count == 2)
    }

    @Test("Redis unreachable: the store's error (the API answers 500, the output sends to nobody until it is back)")
    func unreachable() throws {
        let redis = try TestRedis()
        let (a, _, health) = Self.stores(redis)
        redis.stop()
        #expect(throws: SubscriptionStoreError.self) { try a.all() }
        #expect(throws: SubscriptionStoreError.self) { try a.upsert(Self.subscription(1)) }
        #expect(health.problem != nil)
    }

    @Test func aValueThatIsNotASubscriptionIsSkipped() {
        #expect(RedisSubscriptionStore.decode(Array("no newline".utf8)) == nil)
        #expect(RedisSubscriptionStore.decode(Array("12\n{}".utf8)) == nil)
        let s = Self.subscription(4, person: "bob")
        #expect(RedisSubscriptionStore.decode(Array("12.5\n".utf8) + s.json)?.subscription == s)
    }
}
