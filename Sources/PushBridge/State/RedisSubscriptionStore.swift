import Foundation

/// A Web Push output's subscriptions in Redis (`state.redis`), so every replica sends to
/// every browser whichever replica's page it subscribed on: one hash per output
/// (`<prefix>webpush:<output>`), the endpoint as the field, the value the time it was first
/// added, a newline, and the subscription's JSON (as the Push API writes it, with `person`).
/// Each change is one atomic script; at most `limit` subscriptions.
final class RedisSubscriptionStore: SubscriptionStore {
    /// The hash.
    let key: String
    /// The most subscriptions kept for the output.
    let limit: Int
    private let connection: RedisConnection
    private let health: StateHealth

    /// Adds or replaces one subscription. KEYS: the hash. ARGV: endpoint, added time, JSON,
    /// limit. A replaced one keeps its first-added time (the list's order).
    static let upsertScript = RedisScript("""
        local old = redis.call('HGET', KEYS[1], ARGV[1])
        if old then
          local first = string.match(old, '^([^\\n]*)\\n') or ARGV[2]
          redis.call('HSET', KEYS[1], ARGV[1], first .. '\\n' .. ARGV[3])
          return 'replaced'
        end
        if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[4]) then return 'full' end
        redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. '\\n' .. ARGV[3])
        return 'added'
        """)

    /// The store in hash `key` over `connection`; its operations are recorded in `health`.
    init(key: String, connection: RedisConnection, health: StateHealth, limit: Int = 1000) {
        self.key = key
        self.connection = connection
        self.health = health
        self.limit = limit
    }

    func upsert(_ subscription: WebPushSubscription) throws(SubscriptionStoreError) -> UpsertResult {
        let reply = try timed("webpush_write") { () throws(RedisError) in
            try Self.upsertScript.run(on: connection, keys: [key], arguments: [
                Array(subscription.endpoint.utf8), Array(String(Date().timeIntervalSince1970).utf8), subscription.json,
                Array(String(limit).utf8),
            ])
        }
        switch reply.text {
        case "added": return .added
        case "replaced": return .replaced
        case "full": return .full
        default: throw SubscriptionStoreError("web push subscriptions in Redis '\(key)': the script answered \(reply)")
        }
    }

    @discardableResult
    func remove(endpoint: String) throws(SubscriptionStoreError) -> Bool {
        let reply = try timed("webpush_write") { () throws(RedisError) in try connection.command(["HDEL", key, endpoint]) }
        return (reply.integer ?? 0) > 0
    }

    func all() throws(SubscriptionStoreError) -> [WebPushSubscription] {
        let reply = try timed("webpush_read") { () throws(RedisError) in try connection.command(["HGETALL", key]) }
        guard case .array(let flat) = reply else { return [] }
        var found: [(added: Double, subscription: WebPushSubscription)] = []
        var i = 0
        while i + 1 < flat.count {
            if case .bytes(let value) = flat[i + 1], let entry = Self.decode(value) { found.append(entry) }
            i += 2
        }
        return found.sorted { ($0.added, $0.subscription.endpoint) < ($1.added, $1.subscription.endpoint) }.map(\.subscription)
    }

    /// A hash value: the first-added time and the subscription (`nil` when it is not one).
    static func decode(_ value: [UInt8]) -> (added: Double, subscription: WebPushSubscription)? {
        guard let newline = value.firstIndex(of: UInt8(ascii: "\n")),
              let added = Double(String(decoding: value[..<newline], as: UTF8.self)),
              let json = try? JSONValue.parse(Array(value[(newline + 1)...])),
              let endpoint = json["endpoint"]?.stringValue,
              let p256dh = json["keys"]?["p256dh"]?.stringValue.flatMap(Base64URL.decode),
              let auth = json["keys"]?["auth"]?.stringValue.flatMap(Base64URL.decode)
        else { return nil }
        var expiration: Int64?
        if case .int(let ms)? = json["expirationTime"] { expiration = ms }
        return (added, WebPushSubscription(endpoint: endpoint, p256dh: p256dh, auth: auth, expirationTime: expiration,
                                           person: json["person"]?.stringValue))
    }

    /// One Redis step as operation `op`, recorded in `health`; an error reply or no answer is
    /// the store's error.
    private func timed(_ op: String, _ body: () throws(RedisError) -> RedisReply) throws(SubscriptionStoreError) -> RedisReply {
        let started = ContinuousClock.now
        do throws(RedisError) {
            let reply = try body()
            if case .error(let why) = reply { throw RedisError(description: why) }
            health.succeeded(op, seconds: (ContinuousClock.now - started).seconds)
            return reply
        } catch {
            health.failed(op, why: error.description)
            throw SubscriptionStoreError("web push subscriptions in Redis '\(key)': \(error)")
        }
    }
}
