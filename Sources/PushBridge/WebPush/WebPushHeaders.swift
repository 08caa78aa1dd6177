/// The RFC 8030 headers of one push message, derived from the notification: `TTL`, `Urgency`, `Topic`.
enum WebPushHeaders {
    /// `TTL` when the request has no expiration: one day (an alert older than that is news no
    /// more; the push service may keep it that long for a phone that is offline).
    static let defaultTTL = 86_400

    /// Seconds the push service may keep the message: what is left until `expiration` (UNIX
    /// seconds, as `apns-expiration`: 0 means deliver now or never, so `TTL: 0`); `defaultTTL`
    /// without one; never negative.
    static func ttl(expiration: Int64?, now: Int64) -> Int {
        guard let expiration else { return defaultTTL }
        if expiration == 0 { return 0 }
        return Int(max(0, min(expiration - now, Int64(Int32.max))))
    }

    /// `Urgency` (RFC 8030 section 5.3) for an interruption level: passive `very-low`, active
    /// `normal`, time-sensitive and critical `high`; absent or unknown `normal`.
    static func urgency(interruptionLevel: String?) -> String {
        switch interruptionLevel.flatMap(InterruptionLevel.init(rawValue:)) {
        case .passive?: "very-low"
        case .timeSensitive?, .critical?: "high"
        case .active?, nil: "normal"
        }
    }

    /// `Topic` (RFC 8030 section 5.4) for a collapse id: the id itself when it is a valid topic
    /// (1 to 32 base64url characters), otherwise base64url of the first 24 bytes of its SHA-256
    /// (32 characters); `nil` without a collapse id.
    package static func topic(collapseID: String?) -> String? {
        guard let collapseID, !collapseID.isEmpty else { return nil }
        if collapseID.count <= 32, collapseID.allSatisfy(Base64URL.isAlphabet) { return collapseID }
        return Base64URL.encode(Digests.sha256(Array(collapseID.utf8)).prefix(24))
    }
}
