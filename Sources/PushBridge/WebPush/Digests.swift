import COpenSSL

/// The hash, key derivation, random bytes and AEAD cipher Web Push needs, all through OpenSSL's
/// EVP interfaces (nothing here is a hand-written cipher).
enum Digests {
    /// SHA-256 of `bytes`.
    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        _ = bytes.withUnsafeBufferPointer { SHA256($0.baseAddress, $0.count, &out) }
        return out
    }

    /// An algorithm fetched from OpenSSL's providers once and kept (OpenSSL 3 looks an
    /// algorithm up, under locks, each time one is named instead); never freed.
    private struct Fetched: @unchecked Sendable {
        let pointer: OpaquePointer?
    }
    private static let hkdfSHA256 = Fetched(pointer: EVP_KDF_fetch(nil, "HKDF", nil))
    private static let aes128GCM = Fetched(pointer: EVP_CIPHER_fetch(nil, "AES-128-GCM", nil))

    /// HKDF-SHA256 (RFC 5869, extract then expand) of `length` bytes.
    static func hkdf(salt: [UInt8], key: [UInt8], info: [UInt8], length: Int) throws(CryptoError) -> [UInt8] {
        guard let kdf = hkdfSHA256.pointer else { throw .openSSL("HKDF-SHA256") }
        var out = [UInt8](repeating: 0, count: length)
        try CryptoError.check(pb_ssl_hkdf_sha256(kdf, salt, salt.count, key, key.count, info, info.count, &out, length), "HKDF-SHA256")
        return out
    }

    /// `count` bytes from OpenSSL's CSPRNG.
    static func random(_ count: Int) throws(CryptoError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        try CryptoError.check(RAND_bytes(&out, Int32(count)), "random bytes")
        return out
    }

    /// AES-128-GCM of `plaintext` under `key` (16 bytes) and `nonce` (12 bytes): ciphertext || tag (16 bytes).
    static func aes128gcmSeal(key: [UInt8], nonce: [UInt8], plaintext: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let cipher = aes128GCM.pointer, let ctx = EVP_CIPHER_CTX_new() else { throw .openSSL("AES-128-GCM") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        try CryptoError.check(EVP_EncryptInit_ex2(ctx, cipher, nil, nil, nil), "AES-128-GCM init")
        try CryptoError.check(pb_ssl_gcm_set_ivlen(ctx, Int32(nonce.count)), "AES-128-GCM nonce length")
        try CryptoError.check(EVP_EncryptInit_ex2(ctx, nil, key, nonce, nil), "AES-128-GCM key")
        var out = [UInt8](repeating: 0, count: plaintext.count + 16)
        var written: Int32 = 0
        try CryptoError.check(EVP_EncryptUpdate(ctx, &out, &written, plaintext, Int32(plaintext.count)), "AES-128-GCM encrypt")
        var tail: Int32 = 0
        try out.withUnsafeMutableBufferPointer { p throws(CryptoError) in
            try CryptoError.check(EVP_EncryptFinal_ex(ctx, p.baseAddress! + Int(written), &tail), "AES-128-GCM final")
        }
        let length = Int(written + tail)
        var tag = [UInt8](repeating: 0, count: 16)
        try CryptoError.check(pb_ssl_gcm_get_tag(ctx, 16, &tag), "AES-128-GCM tag")
        return Array(out[..<length]) + tag
    }

    /// The plaintext of AES-128-GCM `sealed` (ciphertext || tag); throws when the tag does not verify.
    static func aes128gcmOpen(key: [UInt8], nonce: [UInt8], sealed: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard sealed.count >= 16 else { throw CryptoError(operation: "AES-128-GCM decrypt", reason: "shorter than the tag") }
        guard let ctx = EVP_CIPHER_CTX_new() else { throw .openSSL("AES-128-GCM") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        let ciphertext = Array(sealed.dropLast(16))
        var tag = Array(sealed.suffix(16))
        try CryptoError.check(EVP_DecryptInit_ex(ctx, EVP_aes_128_gcm(), nil, nil, nil), "AES-128-GCM init")
        try CryptoError.check(pb_ssl_gcm_set_ivlen(ctx, Int32(nonce.count)), "AES-128-GCM nonce length")
        try CryptoError.check(EVP_DecryptInit_ex(ctx, nil, nil, key, nonce), "AES-128-GCM key")
        var out = [UInt8](repeating: 0, count: ciphertext.count + 16)
        var written: Int32 = 0
        try CryptoError.check(EVP_DecryptUpdate(ctx, &out, &written, ciphertext, Int32(ciphertext.count)), "AES-128-GCM decrypt")
        try CryptoError.check(pb_ssl_gcm_set_tag(ctx, 16, &tag), "AES-128-GCM tag")
        var tail: Int32 = 0
        let ok = out.withUnsafeMutableBufferPointer { p in EVP_DecryptFinal_ex(ctx, p.baseAddress! + Int(written), &tail) }
        guard ok > 0 else { throw CryptoError(operation: "AES-128-GCM decrypt", reason: "the authentication tag does not verify") }
        return Array(out[..<Int(written + tail)])
    }
}
