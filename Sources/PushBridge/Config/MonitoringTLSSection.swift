import Foundation

/// `monitoring.tls`: the HTTP endpoints served over TLS (libmicrohttpd with GnuTLS).
package struct MonitoringTLSConfig: Sendable, Equatable {
    /// The certificate chain's PEM file, absolute.
    var certFile: String
    /// The private key's PEM file, absolute.
    var keyFile: String
    /// The certificate PEM, read when the config loads.
    var certPEM: [UInt8]
    /// The key PEM, read when the config loads. Secret: never printed.
    var keyPEM: [UInt8]
}

extension ConfigReader {
    /// Reads `tls: {cert_file, key_file}` of `monitoring`: both needed, both readable PEM files
    /// (read now, so a missing or unreadable one is a config error); `nil` after any problem.
    func readMonitoringTLS(_ node: YAMLNode) -> MonitoringTLSConfig? {
        guard let f = fields(node, key: "tls", context: "monitoring.tls", known: ConfigReference.keys(in: "monitoring.tls")) else { return nil }
        var files: [String: (String, [UInt8])] = [:]
        for key in ["cert_file", "key_file"] {
            guard let n = required(f, key, in: "monitoring.tls"), let v = string(n, key: key) else { continue }
            let resolved = Self.resolve(v, against: configDirectory)
            switch Self.pem(atPath: resolved, label: key == "cert_file" ? "CERTIFICATE" : "PRIVATE KEY") {
            case .success(let bytes): files[key] = (resolved, bytes)
            case .failure(let reason): error("cannot use '\(key)' '\(v)': \(reason)", at: n.mark)
            }
        }
        guard let cert = files["cert_file"], let key = files["key_file"] else { return nil }
        return MonitoringTLSConfig(certFile: cert.0, keyFile: key.0, certPEM: cert.1, keyPEM: key.1)
    }

    /// The bytes of a PEM file holding a `-----BEGIN … <label>-----` block.
    static func pem(atPath path: String, label: String) -> Result<[UInt8], ReadFailure> {
        let read = ConfigLoader.contents(ofFile: path, limit: 1 << 20, tooLarge: "larger than 1 MiB; not a PEM file")
        guard case .success(let bytes) = read else { return read }
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.contains("-----BEGIN "), text.contains("\(label)-----") else {
            return .failure(ReadFailure(reason: "no PEM '\(label)' block in it"))
        }
        return .success(bytes)
    }
}
