import CHiredis
import Synchronization

/// One connection to Redis (or Valkey) through hiredis: commands one at a time under a lock,
/// reconnecting (with `AUTH` and `SELECT`) on the next command after the connection broke.
final class RedisConnection: Sendable {
    let address: RedisAddress
    private let milliseconds: Int
    /// The hiredis context; `nil` while not connected. `@unchecked Sendable`: only touched under the lock.
    private struct Context: @unchecked Sendable {
        var pointer: UnsafeMutablePointer<redisContext>?
    }
    private let context = Mutex(Context())

    /// A connection to `address`, made at the first command; each connect, read and write waits
    /// at most `timeoutMilliseconds`.
    init(address: RedisAddress, timeoutMilliseconds: Int = 2_000) {
        self.address = address
        milliseconds = timeoutMilliseconds
    }

    deinit {
        context.withLock { c in
            if let p = c.pointer { Hiredis.free(p) }
            c.pointer = nil
        }
    }

    /// Sends `arguments` (the command and its arguments) and returns the reply; an error reply
    /// is a reply. Throws when there is no connection or it broke (it is made again next time).
    func command(_ arguments: [String]) throws(RedisError) -> RedisReply {
        try command(bytes: arguments.map { Array($0.utf8) })
    }

    /// `command(_:)` with arguments as bytes.
    func command(bytes arguments: [[UInt8]]) throws(RedisError) -> RedisReply {
        try withContext { Hiredis.command($0, arguments) }
    }

    /// Sends all of `commands` in one write and returns their replies in order (one round trip).
    /// Throws when the connection broke on the way: then some of them may have run.
    func pipeline(_ commands: [[[UInt8]]]) throws(RedisError) -> [RedisReply] {
        guard !commands.isEmpty else { return [] }
        return try withContext { Hiredis.pipeline($0, commands) }
    }

    /// `body` on the open context (connecting first); a failure closes it.
    private func withContext<T>(_ body: (UnsafeMutablePointer<redisContext>) -> Result<T, RedisError>) throws(RedisError) -> T {
        let result = context.withLock { c -> Result<T, RedisError> in
            if c.pointer == nil {
                switch open() {
                case .success(let p): c.pointer = p
                case .failure(let e): return .failure(e)
                }
            }
            let r = body(c.pointer!)
            if case .failure = r, let p = c.pointer {
                // A broken connection is not used again: the next command connects anew.
                Hiredis.free(p)
                c.pointer = nil
            }
            return r
        }
        return try result.get()
    }

    /// Whether a connection is open now (it may still break at the next command).
    var isConnected: Bool { context.withLock { $0.pointer != nil } }

    /// Connects, authenticates and selects the database.
    private func open() -> Result<UnsafeMutablePointer<redisContext>, RedisError> {
        let made: Result<UnsafeMutablePointer<redisContext>, RedisError>
        switch address.place {
        case .tcp(let host, let port): made = Hiredis.connect(host: host, port: port, milliseconds: milliseconds)
        case .socket(let path): made = Hiredis.connect(socket: path, milliseconds: milliseconds)
        }
        guard case .success(let p) = made else { return made }
        Hiredis.setTimeout(p, milliseconds: milliseconds)
        var setup: [[String]] = []
        if let password = address.password { setup.append(["AUTH", password]) }
        if address.database != 0 { setup.append(["SELECT", String(address.database)]) }
        for step in setup {
            switch Hiredis.command(p, step.map { Array($0.utf8) }) {
            case .success(.error(let why)):
                Hiredis.free(p)
                // Never the password itself.
                return .failure(RedisError(description: "\(step[0]) refused: \(why)"))
            case .failure(let e):
                Hiredis.free(p)
                return .failure(e)
            case .success:
                continue
            }
        }
        return .success(p)
    }
}
