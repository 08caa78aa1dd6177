/// One reply of Redis (or Valkey), copied out of hiredis's reply object.
enum RedisReply: Sendable, Equatable {
    /// A simple string (`+OK`, `+PONG`).
    case status(String)
    /// An error reply (`-ERR …`, `-NOSCRIPT …`): the server refused the command.
    case error(String)
    case integer(Int64)
    /// A bulk string: bytes, not necessarily UTF-8.
    case bytes([UInt8])
    case array([RedisReply])
    /// The null bulk string or null array (a key that does not exist).
    case null

    /// The bulk string as UTF-8 text (`nil` for the other kinds).
    var text: String? {
        if case .bytes(let b) = self { return String(decoding: b, as: UTF8.self) }
        if case .status(let s) = self { return s }
        return nil
    }

    /// The integer (`nil` for the other kinds).
    var integer: Int64? {
        if case .integer(let n) = self { return n }
        return nil
    }
}

/// Why a Redis command gave no reply: the connection could not be made, or broke (a timeout,
/// the server gone). A reply the server gave, errors included, is a `RedisReply`.
struct RedisError: Error, CustomStringConvertible, Sendable, Equatable {
    let description: String
}
