import Foundation

/// The application server's VAPID identity (RFC 8292): an ES256 (P-256) key pair kept in a PEM file.
///
/// At first start the file does not exist: a key is made and written with mode 0600 (its
/// directory created). Later starts load it, so browsers' subscriptions, made for its public
/// key, stay valid.
struct VAPIDKey: Sendable {
    /// The key pair.
    package let key: P256Key
    /// The public key as browsers want it for `applicationServerKey` and as the `k=` of the
    /// `Authorization` header: base64url of the uncompressed point.
    let publicKey: String

    /// Why the key file could not be used.
    package enum Failure: Error, Equatable, CustomStringConvertible {
        /// The file exists and cannot be read (`reason`: the system's words).
        case unreadable(path: String, reason: String)
        /// The file holds no P-256 private key in PEM.
        case invalid(path: String, reason: String)
        /// A new key could not be written.
        case unwritable(path: String, reason: String)

        package var description: String {
            switch self {
            case .unreadable(let p, let r): "VAPID key file '\(p)' cannot be read: \(r)"
            case .invalid(let p, let r): "VAPID key file '\(p)' holds no P-256 private key in PEM: \(r)"
            case .unwritable(let p, let r): "VAPID key file '\(p)' cannot be written: \(r)"
            }
        }
    }

    /// The key `key` (its public point derived).
    init(key: P256Key) {
        self.key = key
        self.publicKey = Base64URL.encode(key.publicPoint)
    }

    /// The key in `path`, made and written there (mode 0600, parent directories created) when
    /// the file does not exist. `created` tells which happened.
    static func loadOrCreate(path: String) throws(Failure) -> (key: VAPIDKey, created: Bool) {
        if let bytes = try read(path) {
            do {
                return (VAPIDKey(key: try P256Key.privateKey(pem: bytes, context: "read PEM")), false)
            } catch {
                throw .invalid(path: path, reason: error.reason.isEmpty ? "unrecognised content" : error.reason)
            }
        }
        let made: P256Key, pem: [UInt8]
        do {
            made = try P256Key.generate()
            pem = try made.privatePEM()
        } catch { throw .unwritable(path: path, reason: error.description) }
        try write(pem, to: path)
        return (VAPIDKey(key: made), true)
    }

    /// The file's bytes; `nil` when it does not exist.
    private static func read(_ path: String) throws(Failure) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw .unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 64 * 1024 {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n == 0 { return bytes }
            if n < 0 {
                if errno == EINTR { continue }
                throw .unreadable(path: path, reason: String(cString: strerror(errno)))
            }
            bytes += chunk[..<n]
        }
        throw .invalid(path: path, reason: "larger than 64 KiB")
    }

    /// Writes `pem` to a new file at `path`, mode 0600 from its creation (never readable by
    /// others, even for a moment); refuses to replace a file that appeared meanwhile.
    private static func write(_ pem: [UInt8], to path: String) throws(Failure) {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            } catch { throw .unwritable(path: path, reason: error.localizedDescription) }
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .unwritable(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        _ = fchmod(fd, 0o600)   // the umask may have taken bits away, never added any
        var offset = 0
        while offset < pem.count {
            let n = pem[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw .unwritable(path: path, reason: String(cString: strerror(errno))) }
            offset += n
        }
        guard fsync(fd) == 0 else { throw .unwritable(path: path, reason: String(cString: strerror(errno))) }
    }

    /// How long a VAPID JWT is valid by default (its `exp` after the time it is made).
    static let tokenLifetime: TimeInterval = 12 * 3600

    /// The `Authorization` header value for a push to `endpoint`:
    /// `vapid t=<JWT>, k=<public key>` with the JWT `{aud: endpoint's origin, exp, sub: subject}`.
    /// `expires` is clamped to at most 24 hours after `now` (RFC 8292 section 2).
    func authorization(endpoint: String, subject: String, now: Date = Date(),
                       validFor: TimeInterval = tokenLifetime) throws(VAPIDError) -> String {
        guard let audience = Self.origin(of: endpoint) else { throw .badEndpoint(endpoint) }
        let exp = Int64(now.timeIntervalSince1970 + min(max(validFor, 60), 24 * 3600))
        var claims = JSONWriter()
        claims.beginObject()
        claims.add("aud", audience)
        claims.key("exp"); claims.number(Int(exp))
        claims.add("sub", subject)
        claims.endObject()
        let signingInput = Base64URL.encode(Array(#"{"typ":"JWT","alg":"ES256"}"#.utf8)) + "." + Base64URL.encode(claims.bytes)
        let signature: [UInt8]
        do { signature = try key.signES256(Array(signingInput.utf8)) } catch { throw .signing(error) }
        return "vapid t=\(signingInput).\(Base64URL.encode(signature)), k=\(publicKey)"
    }

    /// `scheme://host[:port]` of an http(s) URL (the port only when not the scheme's default); `nil` for anything else.
    static func origin(of url: String) -> String? {
        guard let c = URLComponents(string: url), let scheme = c.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = c.host, !host.isEmpty, c.user == nil else { return nil }
        let shownHost = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host.lowercased()
        if let port = c.port, !(scheme == "https" && port == 443), !(scheme == "http" && port == 80) {
            return "\(scheme)://\(shownHost):\(port)"
        }
        return "\(scheme)://\(shownHost)"
    }
}

/// Why a VAPID `Authorization` header could not be made.
package enum VAPIDError: Error, Equatable, CustomStringConvertible {
    /// The push endpoint is no http(s) URL with a host.
    case badEndpoint(String)
    /// OpenSSL could not sign.
    case signing(CryptoError)

    package var description: String {
        switch self {
        case .badEndpoint(let e): "push endpoint '\(e)' is not an http(s) URL"
        case .signing(let e): e.description
        }
    }
}
