import Foundation
import Testing
@testable import PushBridge

/// The VAPID key file (made at first start, mode 0600, loaded after) and the RFC 8292 header.
@Suite("VAPID key")
struct VAPIDKeyTests {
    func tempDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "pushbridge-vapid-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func madeAtFirstStartThenLoaded() throws {
        let dir = try tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/state/keys/vapid.pem"   // the parent directories do not exist yet
        let first = try VAPIDKey.loadOrCreate(path: path)
        #expect(first.created)
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600, "the key file is the owner's only")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let point = try #require(Base64URL.decode(first.key.publicKey))
        #expect(point.count == 65 && point[0] == 0x04, "applicationServerKey: the uncompressed point")
        let second = try VAPIDKey.loadOrCreate(path: path)
        #expect(!second.created)
        #expect(second.key.publicKey == first.key.publicKey)
    }

    @Test func aKeyMadeByOpenSSLLoads() async throws {
        let dir = try tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/vapid.pem"
        let r = try await ManagedProcess.run("/usr/bin/openssl", ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", path])
        #expect(r.status == 0, "\(r.stderr)")
        let loaded = try VAPIDKey.loadOrCreate(path: path)   // SEC 1 "EC PRIVATE KEY" PEM
        #expect(!loaded.created)
        #expect(Base64URL.decode(loaded.key.publicKey)?.count == 65)
    }

    @Test func garbageOrTheWrongKeyNamesTheFile() async throws {
        let dir = try tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let garbage = dir + "/garbage.pem"
        try "not a key\n".write(toFile: garbage, atomically: true, encoding: .utf8)
        #expect {
            try VAPIDKey.loadOrCreate(path: garbage)
        } throws: { error in
            guard case .invalid(let path, _) = error as? VAPIDKey.Failure else { return false }
            return path == garbage && "\(error)".contains(garbage)
        }
        let rsa = dir + "/rsa.pem"
        let r = try await ManagedProcess.run("/usr/bin/openssl", ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024", "-out", rsa])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(throws: VAPIDKey.Failure.invalid(path: rsa, reason: "not a P-256 (prime256v1) EC key")) {
            try VAPIDKey.loadOrCreate(path: rsa)
        }
        #expect {
            try VAPIDKey.loadOrCreate(path: dir)   // a directory: exists, cannot be read as a file
        } throws: { error in
            guard case .unreadable(let path, _) = error as? VAPIDKey.Failure else { return false }
            return path == dir
        }
    }

    @Test func anUnwritableDirectoryIsAClearError() throws {
        #expect {
            try VAPIDKey.loadOrCreate(path: "/proc/pushbridge-no-such/vapid.pem")
        } throws: { error in
            guard case .unwritable(let path, _) = error as? VAPIDKey.Failure else { return false }
            return path == "/proc/pushbridge-no-such/vapid.pem"
        }
    }

    /// The JWT's parts, decoded.
    func jwt(_ header: String) throws -> (header: JSONValue, claims: JSONValue, signature: [UInt8], key: String) {
        #expect(header.hasPrefix("vapid t="))
        let parts = header.dropFirst("vapid t=".count).components(separatedBy: ", k=")
        #expect(parts.count == 2)
        let token = parts[0].split(separator: ".").map(String.init)
        #expect(token.count == 3)
        return (try JSONValue.parse(try #require(Base64URL.decode(token[0]))),
                try JSONValue.parse(try #require(Base64URL.decode(token[1]))),
                try #require(Base64URL.decode(token[2])), parts[1])
    }

    @Test func theAuthorizationHeader() throws {
        let key = VAPIDKey(key: try P256Key.generate())
        let now = Date(timeIntervalSince1970: 1_764_600_000)
        let value = try key.authorization(endpoint: "https://fcm.googleapis.com/fcm/send/abc:def?x=1", subject: "mailto:me@example.com", now: now)
        let (header, claims, signature, k) = try jwt(value)
        #expect(header == .object(["typ": .string("JWT"), "alg": .string("ES256")]))
        #expect(claims["aud"] == .string("https://fcm.googleapis.com"))
        #expect(claims["sub"] == .string("mailto:me@example.com"))
        #expect(claims["exp"] == .int(1_764_600_000 + 12 * 3600))
        #expect(signature.count == 64, "ES256 in JWS form: r || s")
        #expect(k == key.publicKey)
        let capped = try jwt(try key.authorization(endpoint: "http://127.0.0.1:8080/p", subject: "https://example.com", now: now, validFor: 7 * 86400))
        #expect(capped.claims["exp"] == .int(1_764_600_000 + 86400), "never more than 24 hours (RFC 8292 section 2)")
        #expect(capped.claims["aud"] == .string("http://127.0.0.1:8080"))
        #expect(throws: VAPIDError.badEndpoint("ftp://x/y")) { try key.authorization(endpoint: "ftp://x/y", subject: "mailto:a@b") }
    }

    @Test(arguments: [
        ("https://updates.push.services.mozilla.com/wpush/v2/gAAAA", "https://updates.push.services.mozilla.com"),
        ("https://web.push.apple.com/QGuQyavXutnMH4", "https://web.push.apple.com"),
        ("https://Example.COM:443/a", "https://example.com"),
        ("http://example.com:80/a", "http://example.com"),
        ("https://example.com:8443/a", "https://example.com:8443"),
        ("http://[::1]:9000/push", "http://[::1]:9000"),
    ])
    func theAudienceIsTheOrigin(endpoint: String, origin: String) {
        #expect(VAPIDKey.origin(of: endpoint) == origin)
    }

    @Test(arguments: ["", "example.com/push", "mailto:a@b", "https://", "https://user@example.com/x", "file:///etc/passwd"])
    func notAnOrigin(endpoint: String) {
        #expect(VAPIDKey.origin(of: endpoint) == nil)
    }
}
