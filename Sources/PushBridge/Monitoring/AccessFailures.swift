/// Failed credentials on the HTTP server, per client address: `limit` failures within
/// `window` block the address for `blockTime` (the server answers it 429, except on
/// `/healthz` and `/readyz`).
///
/// Bounded: at most `capacity` addresses. When a new address would go over it, the addresses
/// with nothing left to remember (no failure in the window, no block running) go first, then
/// the one not blocked that was touched least recently (a blocked one only when all are).
/// Not thread-safe: `HTTPAccess` holds it under its lock.
struct FailureTable {
    /// Failures within `window` that start a block.
    static let limit = 10
    /// How far back failures count.
    static let window: Duration = .seconds(60)
    /// How long a block lasts.
    static let blockTime: Duration = .seconds(60)
    /// The most addresses remembered.
    static let capacity = 4096

    private struct Entry {
        /// The times of the failures not yet past the window, oldest first (at most `limit`).
        var failures: [Duration] = []
        /// When the running block ends, if one runs.
        var blockedUntil: Duration?
        /// When it was last touched, in `touches` (the least recent goes first when full).
        var touched: UInt64
    }

    private var entries: [String: Entry] = [:]
    private var touches: UInt64 = 0
    private var lastSweep: Duration?

    /// Addresses remembered now.
    var count: Int { entries.count }

    /// How much longer `client` stays blocked at `now`, or `nil` when it is not blocked.
    mutating func blocked(_ client: String, now: Duration) -> Duration? {
        guard let until = entries[client]?.blockedUntil else { return nil }
        if until > now { return until - now }
        entries[client]?.blockedUntil = nil
        return nil
    }

    /// Records a failure of `client` at `now`; `true` when it starts a block.
    mutating func fail(_ client: String, now: Duration) -> Bool {
        touches &+= 1
        if entries[client] == nil { makeRoom(now: now) }
        var entry = entries[client] ?? Entry(touched: touches)
        entry.touched = touches
        entry.failures.removeAll { $0 <= now - Self.window }
        entry.failures.append(now)
        var started = false
        if entry.failures.count >= Self.limit {
            entry.blockedUntil = now + Self.blockTime
            entry.failures = []
            started = true
        }
        entries[client] = entry
        return started
    }

    /// Makes room for one more address when the table is full.
    private mutating func makeRoom(now: Duration) {
        guard entries.count >= Self.capacity else { return }
        // The sweep rebuilds the table: at most once a second, however many new addresses come.
        if lastSweep.map({ now - $0 >= .seconds(1) }) ?? true {
            lastSweep = now
            entries = entries.filter { _, e in
                (e.blockedUntil.map { $0 > now } ?? false) || e.failures.contains { $0 > now - Self.window }
            }
            guard entries.count >= Self.capacity else { return }
        }
        // A blocked address is the one known to guess: it stays while another can go.
        var victim: (key: String, blocked: Int, touched: UInt64)?
        for (key, e) in entries {
            let blocked = e.blockedUntil.map { $0 > now } ?? false ? 1 : 0
            if let v = victim, (blocked, e.touched) >= (v.blocked, v.touched) { continue }
            victim = (key, blocked, e.touched)
        }
        if let victim { entries[victim.key] = nil }
    }
}
