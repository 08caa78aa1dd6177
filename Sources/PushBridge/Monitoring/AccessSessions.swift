/// The sessions `POST /login` opened on the HTTP server: each a random id (the cookie's value),
/// valid for `lifetime` from the login, then gone.
///
/// An id is 256 bits from `SystemRandomNumberGenerator` (the kernel's CSPRNG, `getrandom`),
/// never derived from the token. The table keeps SHA-256 digests of the ids, not the ids: a
/// lookup compares digests, so nothing the client sends is compared byte by byte with a
/// secret. At most `capacity` sessions: opening one more ends the one that expires first.
/// Not thread-safe: `HTTPAccess` holds it under its lock.
struct SessionTable {
    /// How long a session lasts from its login.
    static let lifetime: Duration = .seconds(12 * 3600)
    /// The most sessions kept.
    static let capacity = 256
    /// The longest cookie value looked up (an id is 64 hex digits).
    static let maximumIDLength = 128

    /// Expiry by the digest of the id.
    private var expiries: [[UInt8]: Duration] = [:]

    /// Sessions kept now (some may have expired since they were last looked at).
    var count: Int { expiries.count }

    /// Opens a session at `now` and returns its id: 64 lowercase hex digits.
    mutating func open(now: Duration) -> String {
        expiries = expiries.filter { $0.value > now }
        if expiries.count >= Self.capacity, let first = expiries.min(by: { $0.value < $1.value })?.key {
            expiries[first] = nil
        }
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        for _ in 0..<4 { withUnsafeBytes(of: generator.next() as UInt64) { bytes += $0 } }
        let id = Self.hex(bytes)
        expiries[Digests.sha256(Array(id.utf8))] = now + Self.lifetime
        return id
    }

    /// `true` when `id` names a session that has not expired at `now` (an expired one is dropped).
    mutating func isOpen(_ id: String, now: Duration) -> Bool {
        guard !id.isEmpty, id.utf8.count <= Self.maximumIDLength else { return false }
        let key = Digests.sha256(Array(id.utf8))
        guard let expiry = expiries[key] else { return false }
        guard expiry > now else {
            expiries[key] = nil
            return false
        }
        return true
    }

    /// Ends every session (the token changed).
    mutating func removeAll() { expiries = [:] }

    /// `bytes` as lowercase hex digits.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes { out += [digits[Int(b >> 4)], digits[Int(b & 0x0F)]] }
        return String(decoding: out, as: UTF8.self)
    }
}
