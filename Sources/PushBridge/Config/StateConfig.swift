/// `state:`: where the bridge's memory lives. Absent: in the journal (or, without one, in
/// memory). With `redis`, filter memory and the other shared state live in Redis (or Valkey),
/// so replicas behind a shared subscription decide as one bridge (docs/scale-out.md).
struct StateConfig: Sendable, Equatable {
    /// `state.redis`; `nil`: the memory stays in this process and its journal.
    var redis: RedisStateConfig? = nil
    init() {}
}

/// `state.redis:`: the server, the key prefix and when a dead replica's work is taken over.
struct RedisStateConfig: Sendable, Equatable {
    /// The server (`url`), with the password of the URL or of `password_file`.
    var address: RedisAddress
    /// `password_file`, resolved against the config's directory (shown by `check`, never its content).
    var passwordFile: String? = nil
    /// Every key starts with it: several bridges can share one Redis.
    var prefix = "pushbridge:"
    /// A replica that has not answered for this long has its pending work claimed by another.
    var claimAfter: Duration = .seconds(30)

    init(address: RedisAddress) { self.address = address }

    /// The line `check` prints: the URL without its password.
    var described: String {
        var line = "url=\(address.shown) prefix=\(prefix) claim_after=\(claimAfter.text)"
        if let passwordFile { line += " password_file=\(passwordFile)" }
        return line
    }
}
