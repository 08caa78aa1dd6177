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
}
