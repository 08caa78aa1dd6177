import COpenSSL

/// A P-256 (prime256v1) key in OpenSSL: a key pair, or a public key alone.
///
/// Owns one `EVP_PKEY`, freed in `deinit`. `@unchecked Sendable`: the key is never changed
/// after it is made, and OpenSSL 3 allows one `EVP_PKEY` to be used by many threads at once
/// (each operation below makes its own `EVP_PKEY_CTX`/`EVP_MD_CTX`).
package final class P256Key: @unchecked Sendable {
    let key: OpaquePointer

    private init(owning key: OpaquePointer) { self.key = key }

    deinit { EVP_PKEY_free(key) }

    /// A new random key pair.
    static func generate() throws(CryptoError) -> P256Key {
        var key: OpaquePointer?
        guard pb_ssl_keygen_p256(&key) == 1, let key else { throw .openSSL("generate a P-256 key") }
        return P256Key(owning: key)
    }

    /// A new random key pair from `context` (`KeyGenerator`).
    static func generate(with context: OpaquePointer) throws(CryptoError) -> P256Key {
        var key: OpaquePointer?
        guard EVP_PKEY_generate(context, &key) == 1, let key else { throw .openSSL("generate a P-256 key") }
        return P256Key(owning: key)
    }

    /// The key pair in PEM text (`-----BEGIN PRIVATE KEY-----`, PKCS #8, as `openssl genpkey` writes it).
    /// `context` names the source in errors. A PEM with another kind of key is refused.
    static func privateKey(pem: [UInt8], context: String) throws(CryptoError) -> P256Key {
        let parsed: OpaquePointer? = pem.withUnsafeBytes { raw in
            guard let bio = pb_ssl_bio_from(raw.baseAddress, raw.count) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let parsed else { throw .openSSL(context) }
        let key = P256Key(owning: parsed)
        guard EVP_PKEY_is_a(parsed, "EC") == 1, key.curveName == "prime256v1" else {
            throw CryptoError(operation: context, reason: "not a P-256 (prime256v1) EC key")
        }
        return key
    }

    /// The key pair whose private scalar is `scalar` (32 bytes, big-endian): fixed keys for test vectors.
    static func privateKey(scalar: [UInt8]) throws(CryptoError) -> P256Key {
        guard scalar.count == 32, let key = pb_ssl_private_from_scalar(scalar, scalar.count) else {
            throw .openSSL("P-256 key from a scalar")
        }
        return P256Key(owning: key)
    }

    /// The public key whose uncompressed point (`0x04 || x || y`, 65 bytes) is `point`;
    /// throws when the bytes are not a point on the curve.
    static func publicKey(point: [UInt8]) throws(CryptoError) -> P256Key {
        guard point.count == 65, point.first == 0x04, let key = pb_ssl_public_from_point(point, point.count) else {
            throw CryptoError(operation: "read a P-256 public key", reason: "not an uncompressed point on P-256")
        }
        return P256Key(owning: key)
    }

    /// Checks that the public key is a valid point of the group's prime order subgroup (what
    /// OpenSSL checks of an ECDH peer); throws when it is not.
    func checkPublic() throws(CryptoError) {
        guard let ctx = EVP_PKEY_CTX_new(key, nil) else { throw .openSSL("check a P-256 public key") }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_public_check(ctx) == 1 else {
            throw CryptoError(operation: "check a P-256 public key", reason: "not a valid public key of the curve")
        }
    }

    /// The group's name (`prime256v1`).
    var curveName: String {
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, &name, name.count, &length) == 1 else { return "" }
        return String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The uncompressed public point, 65 bytes.
    var publicPoint: [UInt8] {
        var out = [UInt8](repeating: 0, count: 65)
        let length = pb_ssl_public_point(key, &out, out.count)
        return Array(out.prefix(length))
    }

    /// The key pair as PEM (PKCS #8, unencrypted).
    func privatePEM() throws(CryptoError) -> [UInt8] {
        guard let bio = BIO_new(BIO_s_mem()) else { throw .openSSL("write PEM") }
        defer { BIO_free(bio) }
        try CryptoError.check(PEM_write_bio_PrivateKey(bio, key, nil, nil, 0, nil, nil), "write PEM")
        var data: UnsafeMutablePointer<CChar>?
        let length = pb_ssl_bio_bytes(bio, &data)
        guard length > 0, let data else { throw .openSSL("write PEM") }
        return data.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
    }

    /// The ECDH shared secret (the x coordinate, 32 bytes) of this private key and `peer`'s public key.
    /// `peerChecked`: `peer` passed `checkPublic()` already, so OpenSSL does not check it again
    /// (its check is a full scalar multiplication, as costly as the ECDH itself).
    func sharedSecret(with peer: P256Key, peerChecked: Bool = false) throws(CryptoError) -> [UInt8] {
        guard let ctx = EVP_PKEY_CTX_new(key, nil) else { throw .openSSL("ECDH") }
        defer { EVP_PKEY_CTX_free(ctx) }
        try CryptoError.check(EVP_PKEY_derive_init(ctx), "ECDH")
        try CryptoError.check(EVP_PKEY_derive_set_peer_ex(ctx, peer.key, peerChecked ? 0 : 1), "ECDH peer")
        var length = 0
        try CryptoError.check(EVP_PKEY_derive(ctx, nil, &length), "ECDH")
        var out = [UInt8](repeating: 0, count: length)
        try CryptoError.check(EVP_PKEY_derive(ctx, &out, &length), "ECDH")
        return Array(out.prefix(length))
    }

    /// The ES256 signature (ECDSA P-256 over SHA-256) of `message` as JWS wants it: `r || s`, 64 bytes.
    func signES256(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let ctx = EVP_MD_CTX_new() else { throw .openSSL("ES256 sign") }
        defer { EVP_MD_CTX_free(ctx) }
        try CryptoError.check(EVP_DigestSignInit(ctx, nil, EVP_sha256(), nil, key), "ES256 sign")
        var length = 0
        try CryptoError.check(EVP_DigestSign(ctx, nil, &length, message, message.count), "ES256 sign")
        var der = [UInt8](repeating: 0, count: length)
        try CryptoError.check(EVP_DigestSign(ctx, &der, &length, message, message.count), "ES256 sign")
        var raw = [UInt8](repeating: 0, count: 64)
        try CryptoError.check(pb_ssl_ecdsa_der_to_raw(der, length, &raw), "ES256 signature DER")
        return raw
    }
}
