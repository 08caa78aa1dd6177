/// One entry of a Redis stream: its id (`<ms>-<seq>`) and its fields (`nil` for an entry
/// still pending in a consumer group but deleted from the stream).
struct RedisStreamEntry: Sendable, Equatable {
    var id: String
    var fields: [String: [UInt8]]?

    /// A field as UTF-8 text.
    func text(_ name: String) -> String? { fields?[name].map { String(decoding: $0, as: UTF8.self) } }
}

/// The stream commands a consumer group needs (Redis 6.2+ and Valkey), over one
/// `RedisConnection`, and the parsing of their replies. An error reply is thrown as a
/// `RedisError` whose description is the server's words (`NOGROUP …`).
struct RedisStream: Sendable {
    let connection: RedisConnection
    /// The stream's key.
    let key: String
    /// The consumer group's name.
    let group: String

    /// Makes the group (and the stream) when missing, reading from the first entry.
    func ensureGroup() throws(RedisError) {
        let reply = try connection.command(["XGROUP", "CREATE", key, group, "0", "MKSTREAM"])
        if case .error(let why) = reply, !why.hasPrefix("BUSYGROUP") { throw RedisError(description: why) }
    }

    /// `XREADGROUP GROUP <group> <consumer> COUNT <count> STREAMS <key> <from>`: `>` for entries
    /// no consumer had yet, an id for the consumer's own pending entries after it.
    func read(consumer: String, from: String, count: Int) throws(RedisError) -> [RedisStreamEntry] {
        let reply = try checked(connection.command(["XREADGROUP", "GROUP", group, consumer, "COUNT", String(count),
                                                     "STREAMS", key, from]))
        return Self.readReply(reply)
    }

    /// `XAUTOCLAIM <key> <group> <consumer> <minIdle ms> <start> COUNT <count>`: the entries
    /// pending for at least `minIdleMilliseconds` on any consumer, now `consumer`'s, and the
    /// id to go on from (`0-0` once the whole pending list was scanned).
    func autoclaim(consumer: String, minIdleMilliseconds: Int, start: String, count: Int) throws(RedisError)
        -> (next: String, entries: [RedisStreamEntry]) {
        let reply = try checked(connection.command(["XAUTOCLAIM", key, group, consumer, String(minIdleMilliseconds), start,
                                                     "COUNT", String(count)]))
        return Self.autoclaimReply(reply)
    }

    /// Throws an error reply; any other reply is returned.
    func checked(_ reply: RedisReply) throws(RedisError) -> RedisReply {
        if case .error(let why) = reply { throw RedisError(description: why) }
        return reply
    }

    /// The entries of an `XREADGROUP` (or `XREAD`) reply for one stream; none for a null reply.
    static func readReply(_ reply: RedisReply) -> [RedisStreamEntry] {
        guard case .array(let streams) = reply, case .array(let pair)? = streams.first, pair.count == 2 else { return [] }
        return entries(pair[1])
    }

    /// The next start and the entries of an `XAUTOCLAIM` reply (Redis 7 adds a third element,
    /// the deleted ids, which are no longer pending: ignored).
    static func autoclaimReply(_ reply: RedisReply) -> (next: String, entries: [RedisStreamEntry]) {
        guard case .array(let parts) = reply, parts.count >= 2 else { return ("0-0", []) }
        return (parts[0].text ?? "0-0", entries(parts[1]))
    }

    /// A list of `[id, [field, value, …]]` entries (a null field list: the entry was deleted).
    static func entries(_ list: RedisReply) -> [RedisStreamEntry] {
        guard case .array(let items) = list else { return [] }
        return items.compactMap { item -> RedisStreamEntry? in
            guard case .array(let pair) = item, let id = pair.first?.text else { return nil }
            guard pair.count > 1, case .array(let flat) = pair[1] else { return RedisStreamEntry(id: id, fields: nil) }
            var fields: [String: [UInt8]] = [:]
            var i = 0
            while i + 1 < flat.count {
                if let name = flat[i].text, case .bytes(let value) = flat[i + 1] { fields[name] = value }
                i += 2
            }
            return RedisStreamEntry(id: id, fields: fields)
        }
    }
}
