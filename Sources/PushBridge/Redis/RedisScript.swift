import Synchronization

/// A Lua script run atomically on the server (`EVALSHA`; loaded with `SCRIPT LOAD` the first
/// time and again when the server answers `NOSCRIPT`, e.g. after a restart or `SCRIPT FLUSH`).
/// Only what Redis 7.0 and Valkey both have.
final class RedisScript: Sendable {
    let source: String
    /// The SHA1 the server gave at `SCRIPT LOAD`.
    private let sha = Mutex<String?>(nil)

    init(_ source: String) { self.source = source }

    /// Runs the script with `keys` and `arguments` on `connection`; an error the script raised
    /// is an `.error` reply.
    func run(on connection: RedisConnection, keys: [String], arguments: [[UInt8]]) throws(RedisError) -> RedisReply {
        let tail = [Array(String(keys.count).utf8)] + keys.map { Array($0.utf8) } + arguments
        if let sha = sha.withLock({ $0 }) {
            let reply = try connection.command(bytes: [Array("EVALSHA".utf8), Array(sha.utf8)] + tail)
            if case .error(let why) = reply, why.hasPrefix("NOSCRIPT") {} else { return reply }
        }
        let loaded = try connection.command(["SCRIPT", "LOAD", source])
        guard let new = loaded.text, case .bytes = loaded else {
            throw RedisError(description: "SCRIPT LOAD answered \(loaded)")
        }
        sha.withLock { $0 = new }
        return try connection.command(bytes: [Array("EVALSHA".utf8), Array(new.utf8)] + tail)
    }

    /// Runs the script once per call in one pipeline (one round trip), loading it first when
    /// the server does not know it; the replies in the order of `calls`. A call the server
    /// answered `NOSCRIPT` did not run, so it is sent again after `SCRIPT LOAD`.
    func runMany(on connection: RedisConnection, _ calls: [(keys: [String], arguments: [[UInt8]])]) throws(RedisError) -> [RedisReply] {
        func commands(_ sha: String, _ indexes: [Int]) -> [[[UInt8]]] {
            let head = [Array("EVALSHA".utf8), Array(sha.utf8)]
            return indexes.map { i in
                head + [Array(String(calls[i].keys.count).utf8)] + calls[i].keys.map { Array($0.utf8) } + calls[i].arguments
            }
        }
        var sha: String
        if let known = self.sha.withLock({ $0 }) { sha = known } else { sha = try load(on: connection) }
        var replies = try connection.pipeline(commands(sha, Array(calls.indices)))
        let unknown = replies.indices.filter { if case .error(let why) = replies[$0] { why.hasPrefix("NOSCRIPT") } else { false } }
        guard !unknown.isEmpty else { return replies }
        sha = try load(on: connection)
        for (i, reply) in zip(unknown, try connection.pipeline(commands(sha, unknown))) { replies[i] = reply }
        return replies
    }

    /// `SCRIPT LOAD`: the SHA1 the server gives, kept for the next calls.
    private func load(on connection: RedisConnection) throws(RedisError) -> String {
        let loaded = try connection.command(["SCRIPT", "LOAD", source])
        guard let new = loaded.text, case .bytes = loaded else {
            throw RedisError(description: "SCRIPT LOAD answered \(loaded)")
        }
        sha.withLock { $0 = new }
        return new
    }
}
