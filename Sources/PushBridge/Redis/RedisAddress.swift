/// Where a Redis (or Valkey) server is, from a URL: `redis://[:password@]host[:port][/db]` or
/// `unix:///path/to/socket[?db=N]`. `rediss://` (TLS) is refused: Debian 12's hiredis (0.14)
/// has no TLS.
struct RedisAddress: Sendable, Equatable {
    /// A TCP host and port, or a unix socket's path.
    enum Place: Sendable, Equatable {
        case tcp(host: String, port: Int)
        case socket(String)
    }

    var place: Place
    /// The database `SELECT`ed after connecting (0 by default).
    var database = 0
    /// The password of the URL (`AUTH` after connecting), if it has one.
    var password: String?

    /// The URL without its password, for logs and `check`.
    var shown: String {
        let db = database == 0 ? "" : "\(database)"
        switch place {
        case .tcp(let host, let port):
            let h = host.contains(":") ? "[\(host)]" : host
            return "redis://" + (password == nil ? "" : ":***@") + "\(h):\(port)/" + db
        case .socket(let path):
            return "unix://\(path)" + (db.isEmpty ? "" : "?db=\(db)")
        }
    }

    /// The address `url` gives, or what is wrong with it.
    static func parse(_ url: String) -> Result<RedisAddress, RedisError> {
        func bad(_ why: String) -> Result<RedisAddress, RedisError> { .failure(RedisError(description: why)) }
        if url.hasPrefix("rediss://") {
            return bad("rediss:// (TLS) needs hiredis 1.0 or later, and Debian 12's libhiredis 0.14 has no TLS: "
                       + "use redis:// on a trusted network, or a unix:// socket")
        }
        if url.hasPrefix("unix://") {
            var rest = Substring(url.dropFirst("unix://".count))
            var database = 0
            if let q = rest.firstIndex(of: "?") {
                let query = rest[rest.index(after: q)...]
                rest = rest[..<q]
                guard query.hasPrefix("db="), let n = Int(query.dropFirst(3)), n >= 0 else {
                    return bad("'\(url)': the only query a unix:// URL takes is ?db=N (a database number)")
                }
                database = n
            }
            guard rest.hasPrefix("/") else { return bad("'\(url)': a unix:// URL names an absolute path (unix:///run/redis.sock)") }
            return .success(RedisAddress(place: .socket(String(rest)), database: database))
        }
        guard url.hasPrefix("redis://") else {
            return bad("'\(url)': a Redis URL starts with redis:// or unix://")
        }
        var rest = Substring(url.dropFirst("redis://".count))
        var password: String?
        if let at = rest.lastIndex(of: "@") {
            let user = rest[..<at]
            rest = rest[rest.index(after: at)...]
            // `:password` (no user name: Redis 5 style) or `user:password` (ACL: the user is ignored by AUTH with one argument).
            guard let colon = user.firstIndex(of: ":") else { return bad("'\(url)': give the password as redis://:PASSWORD@host") }
            password = String(user[user.index(after: colon)...])
        }
        var database = 0
        if let slash = rest.firstIndex(of: "/") {
            let db = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
            if !db.isEmpty {
                guard let n = Int(db), n >= 0 else { return bad("'\(url)': the path is a database number (redis://host:6379/0)") }
                database = n
            }
        }
        var host = String(rest)
        var port = 6379
        if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
            host = String(rest[rest.index(after: rest.startIndex)..<close])
            let after = rest[rest.index(after: close)...]
            if after.hasPrefix(":") {
                guard let p = Int(after.dropFirst()), (1...65_535).contains(p) else { return bad("'\(url)': the port must be 1-65535") }
                port = p
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = String(rest[..<colon])
            guard let p = Int(rest[rest.index(after: colon)...]), (1...65_535).contains(p) else {
                return bad("'\(url)': the port must be 1-65535")
            }
            port = p
        }
        guard !host.isEmpty else { return bad("'\(url)': no host (redis://127.0.0.1:6379/0)") }
        return .success(RedisAddress(place: .tcp(host: host, port: port), database: database, password: password))
    }
}
