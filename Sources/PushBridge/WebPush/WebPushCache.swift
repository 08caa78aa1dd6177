import COpenSSL
import Foundation
import Synchronization

/// What one `webpush` output keeps between its push messages, so that a message costs its own
/// encryption and little else:
/// - the VAPID `Authorization` header per push service (origin) and subject: a JWT is valid
///   for `VAPIDKey.authorization`'s 12 hours and is signed again once less than half of that
///   is left (RFC 8292 lets a sender reuse one token for many messages);
/// - each subscription's public key as OpenSSL holds it (read from its `p256dh` once);
/// - each endpoint's origin (the JWT's audience).
///
/// The encryption's ephemeral key and salt are never kept: each message has its own
/// (RFC 8291 section 3.1). Bounded: a table is emptied when it reaches `limit` entries.
final class WebPushCache: Sendable {
    private struct Token {
        let header: String
        let expires: Int64
    }

    private struct State {
        var tokens: [String: Token] = [:]
        var peers: [[UInt8]: P256Key] = [:]
        var origins: [String: String] = [:]
    }

    private let state = Mutex(State())
    /// The encryption's ephemeral keys.
    let keys = KeyGenerator()
    /// Entries a table holds at most (subscriptions, endpoints, push services).
    static let limit = 4096

    /// The `Authorization` header for a push to `endpoint` signed by `vapid` for `subject` at
    /// `now`: the kept one while at least half of its validity is left, else a new one (kept).
    func authorization(vapid: VAPIDKey, endpoint: String, subject: String, now: Date) throws(VAPIDError) -> String {
        let origin: String
        if let known = state.withLock({ $0.origins[endpoint] }) {
            origin = known
        } else {
            guard let found = VAPIDKey.origin(of: endpoint) else { throw .badEndpoint(endpoint) }
            origin = found
            state.withLock { s in
                if s.origins.count >= Self.limit { s.origins.removeAll(keepingCapacity: true) }
                s.origins[endpoint] = found
            }
        }
        let key = subject + "\n" + origin
        let seconds = Int64(now.timeIntervalSince1970)
        let validFor = Int64(VAPIDKey.tokenLifetime)
        if let kept = state.withLock({ $0.tokens[key] }), kept.expires - seconds >= validFor / 2, kept.expires - seconds <= validFor {
            return kept.header
        }
        let header = try vapid.authorization(endpoint: endpoint, subject: subject, now: now)
        state.withLock { s in
            if s.tokens.count >= Self.limit { s.tokens.removeAll(keepingCapacity: true) }
            s.tokens[key] = Token(header: header, expires: seconds + validFor)
        }
        return header
    }

    /// The subscription's public key for its `p256dh` (an uncompressed P-256 point), checked as
    /// an ECDH peer once; throws when the bytes are no valid point (nothing is kept then).
    func peer(_ p256dh: [UInt8]) throws(CryptoError) -> P256Key {
        if let kept = state.withLock({ $0.peers[p256dh] }) { return kept }
        let key = try P256Key.publicKey(point: p256dh)
        try key.checkPublic()  // once here: the ECDH of each message then skips it
        state.withLock { s in
            if s.peers.count >= Self.limit { s.peers.removeAll(keepingCapacity: true) }
            s.peers[p256dh] = key
        }
        return key
    }
}

/// Makes the ephemeral P-256 keys of the encryption from one kept OpenSSL context (set up for
/// the curve once), one caller at a time (a context is not shared between threads).
final class KeyGenerator: Sendable {
    private struct Context: @unchecked Sendable {
        let pointer: OpaquePointer?
    }

    private let context: Mutex<Context>

    init() {
        context = Mutex(Context(pointer: pb_ssl_keygen_context_p256()))
    }

    deinit {
        context.withLock { if let p = $0.pointer { EVP_PKEY_CTX_free(p) } }
    }

    /// A new random key pair (through OpenSSL's one-off path when the context could not be made).
    func generate() throws(CryptoError) -> P256Key {
        try context.withLock { c throws(CryptoError) -> P256Key in
            guard let p = c.pointer else { return try P256Key.generate() }
            return try P256Key.generate(with: p)
        }
    }
}
