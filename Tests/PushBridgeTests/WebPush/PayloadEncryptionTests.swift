import Foundation
import Testing
@testable import PushBridge

/// RFC 8291 aes128gcm through OpenSSL: the RFC's own test vector, byte for byte, and round trips.
@Suite("Web Push payload encryption")
struct PayloadEncryptionTests {
    /// RFC 8291 Appendix A ("Encryption Example"), values as printed there (base64url).
    enum Vector {
        static let plaintext = "When I grow up, I want to be a watermelon"
        static let asPrivate = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"
        static let asPublic = "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8"
        static let uaPrivate = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
        static let uaPublic = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
        static let salt = "DGv6ra1nlYgDCS1FRnbzlw"
        static let authSecret = "BTBZMqHH6r4Tts7J_aSIgg"
        static let body = "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"
    }

    func b(_ text: String) throws -> [UInt8] { try #require(Base64URL.decode(text), "not base64url: \(text)") }

    @Test func theRFCVectorGivesTheRFCBytes() throws {
        let sender = try P256Key.privateKey(scalar: try b(Vector.asPrivate))
        #expect(Base64URL.encode(sender.publicPoint) == Vector.asPublic)
        let body = try PayloadEncryption.encrypt(Array(Vector.plaintext.utf8), p256dh: try b(Vector.uaPublic),
                                                 auth: try b(Vector.authSecret), ephemeral: sender, salt: try b(Vector.salt))
        #expect(Base64URL.encode(body) == Vector.body)
        #expect(body.count == Vector.plaintext.utf8.count + PayloadEncryption.headerLength + 1 + 16)
    }

    @Test func theRFCVectorDecryptsWithTheUserAgentsKey() throws {
        let userAgent = try P256Key.privateKey(scalar: try b(Vector.uaPrivate))
        #expect(Base64URL.encode(userAgent.publicPoint) == Vector.uaPublic)
        let plain = try PayloadEncryption.decrypt(try b(Vector.body), privateKey: userAgent, auth: try b(Vector.authSecret))
        #expect(String(decoding: plain, as: UTF8.self) == Vector.plaintext)
    }

    @Test(arguments: [0, 1, 41, 1000, PayloadEncryption.maximumPlaintext])
    func roundTripsWithFreshKeys(length: Int) throws {
        let userAgent = try P256Key.generate()
        let auth = try Digests.random(16)
        let plaintext = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let one = try PayloadEncryption.encrypt(plaintext, p256dh: userAgent.publicPoint, auth: auth)
        let two = try PayloadEncryption.encrypt(plaintext, p256dh: userAgent.publicPoint, auth: auth)
        #expect(one != two, "a fresh salt and ephemeral key per message")
        #expect(Array(one[16..<21]) == [0, 0, 0x10, 0, 65], "rs 4096 and a 65-byte key id")
        #expect(try PayloadEncryption.decrypt(one, privateKey: userAgent, auth: auth) == plaintext)
        #expect(try PayloadEncryption.decrypt(two, privateKey: userAgent, auth: auth) == plaintext)
    }

    @Test func aChangedByteOrWrongSecretDoesNotDecrypt() throws {
        let userAgent = try P256Key.generate()
        let auth = try Digests.random(16)
        let body = try PayloadEncryption.encrypt(Array("hello".utf8), p256dh: userAgent.publicPoint, auth: auth)
        var tampered = body
        tampered[tampered.count - 3] ^= 1
        #expect(throws: CryptoError.self) { try PayloadEncryption.decrypt(tampered, privateKey: userAgent, auth: auth) }
        var otherAuth = auth
        otherAuth[0] ^= 0xFF
        #expect(throws: CryptoError.self) { try PayloadEncryption.decrypt(body, privateKey: userAgent, auth: otherAuth) }
        #expect(throws: CryptoError.self) { try PayloadEncryption.decrypt(body, privateKey: try P256Key.generate(), auth: auth) }
    }

    @Test func refusesWhatCannotBeSent() throws {
        let point = try P256Key.generate().publicPoint
        let auth = [UInt8](repeating: 1, count: 16)
        #expect(throws: PayloadEncryption.Failure.tooLarge(PayloadEncryption.maximumPlaintext + 1)) {
            try PayloadEncryption.encrypt([UInt8](repeating: 0, count: PayloadEncryption.maximumPlaintext + 1), p256dh: point, auth: auth)
        }
        #expect(throws: PayloadEncryption.Failure.badSubscriptionKeys("auth is 15 bytes, not 16")) {
            try PayloadEncryption.encrypt([1], p256dh: point, auth: Array(auth.prefix(15)))
        }
        var offCurve = point
        offCurve[64] ^= 1
        #expect(throws: PayloadEncryption.Failure.badSubscriptionKeys("p256dh is not an uncompressed P-256 point")) {
            try PayloadEncryption.encrypt([1], p256dh: offCurve, auth: auth)
        }
        #expect(PayloadEncryption.maximumPlaintext == 3993)
    }

    @Test func digestsMatchKnownAnswers() throws {
        // SHA-256("abc"), FIPS 180-2 Appendix B.1.
        #expect(Digests.sha256(Array("abc".utf8)).map { String(format: "%02x", $0) }.joined()
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        // HKDF-SHA256, RFC 5869 Appendix A.1 (test case 1).
        let okm = try Digests.hkdf(salt: Array(0...12), key: [UInt8](repeating: 0x0b, count: 22),
                                   info: Array(0xf0...0xf9), length: 42)
        #expect(okm.map { String(format: "%02x", $0) }.joined()
                == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
    }

    @Test func base64URLRoundTripsAndRefusesOtherAlphabets() {
        for n in 0..<40 {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 * 37 + 250) }
            let text = Base64URL.encode(bytes)
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(Base64URL.decode(text) == bytes)
        }
        #expect(Base64URL.decode("ab+/") == nil)
        #expect(Base64URL.decode("a") == nil)
        #expect(Base64URL.decode("a b") == nil)
        #expect(Base64URL.decode("_-8") == [0xff, 0xef])
        #expect(Base64URL.decode("AQ==") == [1])
    }

    /// The encoder writes its own alphabet: it must agree with Foundation's base64 (with `+/`
    /// mapped to `-_` and the padding dropped) for every length and every byte value.
    @Test func base64URLEncodeAgreesWithFoundation() {
        var state: UInt64 = 0x9E3779B97F4A7C15
        for n in 0..<200 {
            let bytes = (0..<n).map { _ -> UInt8 in
                state = state &* 6364136223846793005 &+ 1442695040888963407
                return UInt8(truncatingIfNeeded: state >> 56)
            }
            var expected = Data(bytes).base64EncodedString()
            expected = expected.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            while expected.hasSuffix("=") { expected.removeLast() }
            #expect(Base64URL.encode(bytes) == expected, "length \(n)")
        }
        #expect(Base64URL.encode([0xfb, 0xff]) == "-_8")
        #expect(Base64URL.encode(Array(0...255)).count == 342)
    }
}
