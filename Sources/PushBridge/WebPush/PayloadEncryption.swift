/// RFC 8291 message encryption for Web Push, content coding `aes128gcm` (RFC 8188): one
/// record, padding delimiter 0x02, the sender's ephemeral public key as the key id.
///
/// All cryptography is OpenSSL's (ECDH, HKDF-SHA256, AES-128-GCM); this type only lays out
/// the RFC's inputs and the header.
package enum PayloadEncryption {
    /// The record size written in the header (the RFC's example uses it too).
    static let recordSize: UInt32 = 4096
    /// Header bytes: salt (16), record size (4), key id length (1), key id (65).
    static let headerLength = 16 + 4 + 1 + 65
    /// The largest plaintext sent: push services accept bodies of at most 4096 bytes
    /// (RFC 8030 section 7.2), less the header, the delimiter and the 16-byte tag.
    static let maximumPlaintext = 4096 - headerLength - 1 - 16

    /// Why a payload cannot be encrypted.
    package enum Failure: Error, Equatable, CustomStringConvertible {
        /// The subscription's `p256dh` is no P-256 point, or its `auth` secret is not 16 bytes.
        case badSubscriptionKeys(String)
        /// More than `maximumPlaintext` bytes.
        case tooLarge(Int)
        /// OpenSSL failed.
        case crypto(CryptoError)

        package var description: String {
            switch self {
            case .badSubscriptionKeys(let why): "subscription keys: \(why)"
            case .tooLarge(let n): "payload of \(n) bytes is over the \(PayloadEncryption.maximumPlaintext) bytes a push message carries"
            case .crypto(let e): e.description
            }
        }
    }

    /// The request body for `plaintext` to the user agent whose keys are `p256dh` (its
    /// uncompressed public point) and `auth` (16 bytes), with a fresh ephemeral key and salt.
    static func encrypt(_ plaintext: [UInt8], p256dh: [UInt8], auth: [UInt8]) throws(Failure) -> [UInt8] {
        let ephemeral: P256Key, salt: [UInt8]
        do throws(CryptoError) {
            ephemeral = try P256Key.generate()
            salt = try Digests.random(16)
        } catch { throw .crypto(error) }
        return try encrypt(plaintext, p256dh: p256dh, auth: auth, ephemeral: ephemeral, salt: salt)
    }

    /// `encrypt` to `userAgent`, the key read from `p256dh` and checked (`P256Key.checkPublic`)
    /// beforehand, the ephemeral key from `keys` (`WebPushCache.peer`).
    static func encrypt(_ plaintext: [UInt8], userAgent: P256Key, p256dh: [UInt8], auth: [UInt8],
                        keys: KeyGenerator) throws(Failure) -> [UInt8] {
        let ephemeral: P256Key, salt: [UInt8]
        do throws(CryptoError) {
            ephemeral = try keys.generate()
            salt = try Digests.random(16)
        } catch { throw .crypto(error) }
        return try encrypt(plaintext, userAgent: userAgent, p256dh: p256dh, auth: auth, ephemeral: ephemeral, salt: salt,
                           peerChecked: true)
    }

    /// `encrypt` with a given ephemeral key pair and salt (RFC 8291 Appendix A fixes both).
    static func encrypt(_ plaintext: [UInt8], p256dh: [UInt8], auth: [UInt8],
                                ephemeral: P256Key, salt: [UInt8]) throws(Failure) -> [UInt8] {
        guard plaintext.count <= maximumPlaintext else { throw .tooLarge(plaintext.count) }
        guard auth.count == 16 else { throw .badSubscriptionKeys("auth is \(auth.count) bytes, not 16") }
        let userAgent: P256Key
        do { userAgent = try P256Key.publicKey(point: p256dh) } catch { throw .badSubscriptionKeys("p256dh is not an uncompressed P-256 point") }
        return try encrypt(plaintext, userAgent: userAgent, p256dh: p256dh, auth: auth, ephemeral: ephemeral, salt: salt)
    }

    /// `encrypt` to `userAgent` (the key of `p256dh`) with a given ephemeral key pair and salt.
    private static func encrypt(_ plaintext: [UInt8], userAgent: P256Key, p256dh: [UInt8], auth: [UInt8],
                                ephemeral: P256Key, salt: [UInt8], peerChecked: Bool = false) throws(Failure) -> [UInt8] {
        guard plaintext.count <= maximumPlaintext else { throw .tooLarge(plaintext.count) }
        guard salt.count == 16 else { throw .crypto(CryptoError(operation: "aes128gcm encrypt", reason: "the salt must be 16 bytes")) }
        guard auth.count == 16 else { throw .badSubscriptionKeys("auth is \(auth.count) bytes, not 16") }
        do throws(CryptoError) {
            let senderPublic = ephemeral.publicPoint
            let (key, nonce) = try contentKeys(secret: try ephemeral.sharedSecret(with: userAgent, peerChecked: peerChecked), auth: auth,
                                               userAgentPublic: p256dh, senderPublic: senderPublic, salt: salt)
            let sealed = try Digests.aes128gcmSeal(key: key, nonce: nonce, plaintext: plaintext + [0x02])
            return header(salt: salt, keyID: senderPublic) + sealed
        } catch { throw .crypto(error) }
    }

    /// The plaintext of `body`, as the user agent holding `privateKey` and `auth` reads it
    /// (one record, as `encrypt` writes; the padding removed).
    static func decrypt(_ body: [UInt8], privateKey: P256Key, auth: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard body.count > headerLength, body[20] == 65 else {
            throw CryptoError(operation: "aes128gcm decrypt", reason: "no header with a 65-byte key id")
        }
        let salt = Array(body[0..<16]), senderPublic = Array(body[21..<86])
        let sender = try P256Key.publicKey(point: senderPublic)
        let (key, nonce) = try contentKeys(secret: try privateKey.sharedSecret(with: sender), auth: auth,
                                           userAgentPublic: privateKey.publicPoint, senderPublic: senderPublic, salt: salt)
        var padded = try Digests.aes128gcmOpen(key: key, nonce: nonce, sealed: Array(body[86...]))
        while padded.last == 0 { padded.removeLast() }
        guard padded.last == 0x02 else { throw CryptoError(operation: "aes128gcm decrypt", reason: "no last-record delimiter") }
        return Array(padded.dropLast())
    }

    /// RFC 8291 section 3.4 then RFC 8188 section 2.2: the content encryption key (16 bytes) and nonce (12 bytes).
    static func contentKeys(secret: [UInt8], auth: [UInt8], userAgentPublic: [UInt8], senderPublic: [UInt8],
                            salt: [UInt8]) throws(CryptoError) -> (key: [UInt8], nonce: [UInt8]) {
        let keyInfo = Array("WebPush: info".utf8) + [0] + userAgentPublic + senderPublic
        let ikm = try Digests.hkdf(salt: auth, key: secret, info: keyInfo, length: 32)
        let key = try Digests.hkdf(salt: salt, key: ikm, info: Array("Content-Encoding: aes128gcm".utf8) + [0], length: 16)
        let nonce = try Digests.hkdf(salt: salt, key: ikm, info: Array("Content-Encoding: nonce".utf8) + [0], length: 12)
        return (key, nonce)
    }

    /// salt || rs (big-endian) || idlen || keyid.
    static func header(salt: [UInt8], keyID: [UInt8]) -> [UInt8] {
        let rs = recordSize
        return salt + [UInt8(rs >> 24), UInt8(rs >> 16 & 0xFF), UInt8(rs >> 8 & 0xFF), UInt8(rs & 0xFF), UInt8(keyID.count)] + keyID
    }
}
