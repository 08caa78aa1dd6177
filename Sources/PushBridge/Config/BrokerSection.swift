import Foundation

/// Reads `broker:` (docs/configuration.md, "broker").
extension ConfigReader {
    static let brokerKeys = ConfigReference.keys(in: "broker")

    func readBroker(_ node: YAMLNode, baseDirectory: String) -> BrokerConfig {
        var broker = BrokerConfig()
        guard let f = fields(node, key: "broker", context: "broker", known: Self.brokerKeys) else { return broker }
        if let n = f["host"], let v = string(n, key: "host") {
            if v.trimmingSpaces.isEmpty { error("'host' must not be empty", at: n.mark) } else { broker.host = v }
        }
        if let n = f["port"], let v = int(n, key: "port", range: 1...65_535) { broker.port = v }
        if let n = f["client_id"], let v = string(n, key: "client_id") {
            if v.utf8.count > 65_535 { error("'client_id' is too long", at: n.mark) } else { broker.clientID = v }
        }
        if let n = f["protocol"] {
            // A plain 5 or a quoted "5" both mean MQTT 5; a plain 3.1.1 is already a string.
            if case .scalar(let s) = n, let version = MQTTProtocolVersion(rawValue: s.value) {
                broker.protocolVersion = version
            } else {
                error("'protocol' must be 5 or \"3.1.1\", got \(show(n))", at: n.mark)
            }
        }
        if let n = f["keepalive"],
           let v = duration(n, key: "keepalive", minimum: .seconds(5), maximum: .seconds(65_535)) {
            broker.keepalive = v
        }
        if let n = f["clean_start"], let v = bool(n, key: "clean_start") { broker.cleanStart = v }
        if let n = f["session_expiry"],
           let v = duration(n, key: "session_expiry", minimum: .zero, maximum: .seconds(4_294_967_295)) {
            broker.sessionExpiry = v
        }
        if let n = f["username"], let v = string(n, key: "username") { broker.username = v }
        if let n = f["password"], let v = string(n, key: "password") { broker.password = v }
        if let n = f["password_file"], let file = string(n, key: "password_file") {
            if f["password"] != nil {
                error("'password' and 'password_file' are mutually exclusive; keep one", at: n.mark)
            } else {
                let resolved = Self.resolve(file, against: baseDirectory)
                broker.passwordFile = resolved
                switch Self.firstLine(ofFile: resolved) {
                case .success(let line): broker.password = line
                case .failure(let reason): error("cannot read 'password_file' '\(file)': \(reason)", at: n.mark)
                }
            }
        }
        if let n = f["tls"] { broker.tls = readTLS(n) }
        if let n = f["reconnect"] { readReconnect(n, into: &broker) }
        return broker
    }

    private func readTLS(_ node: YAMLNode) -> TLSConfig? {
        guard let f = fields(node, key: "tls", context: "tls",
                             known: ConfigReference.keys(in: "broker.tls")) else { return nil }
        var tls = TLSConfig()
        if let n = f["ca_file"] { tls.caFile = string(n, key: "ca_file") }
        if let n = f["cert_file"] { tls.certFile = string(n, key: "cert_file") }
        if let n = f["key_file"] { tls.keyFile = string(n, key: "key_file") }
        if let n = f["insecure"], let v = bool(n, key: "insecure") { tls.insecure = v }
        if (f["cert_file"] == nil) != (f["key_file"] == nil) {
            let missing = f["cert_file"] == nil ? "cert_file" : "key_file"
            let present = missing == "cert_file" ? "key_file" : "cert_file"
            error("'\(present)' needs '\(missing)' too (a client certificate needs both)", at: f.keyMarks[present] ?? f.mark)
        }
        return tls
    }

    private func readReconnect(_ node: YAMLNode, into broker: inout BrokerConfig) {
        guard let f = fields(node, key: "reconnect", context: "reconnect", known: ConfigReference.keys(in: "broker.reconnect")) else { return }
        let low = f["min"].flatMap { duration($0, key: "min", minimum: Self.positive) }
        let high = f["max"].flatMap { duration($0, key: "max", minimum: Self.positive) }
        if let low { broker.reconnectMin = low }
        if let high { broker.reconnectMax = high }
        if (low != nil || f["min"] == nil) && (high != nil || f["max"] == nil),
           broker.reconnectMin > broker.reconnectMax {
            error("reconnect 'min' (\(broker.reconnectMin.text)) must not be greater than 'max' (\(broker.reconnectMax.text))",
                  at: f.keyMarks["min"] ?? f.mark)
        }
    }

    /// `path` made absolute against `directory` when it is relative.
    static func resolve(_ path: String, against directory: String) -> String {
        path.hasPrefix("/") || directory.isEmpty ? path : directory + "/" + path
    }

    /// The first line of a file, without its `\n` or `\r\n`.
    static func firstLine(ofFile path: String) -> Result<String, ReadFailure> {
        guard let data = FileManager.default.contents(atPath: path) else {
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            return .failure(ReadFailure(reason: !exists ? "No such file or directory"
                                        : isDirectory.boolValue ? "Is a directory" : "Permission denied"))
        }
        let text = String(decoding: data, as: UTF8.self)
        var line = Substring(text)
        if let newline = line.firstIndex(where: { $0 == "\n" || $0 == "\r\n" }) {
            line = line[..<newline]
        }
        if line.hasSuffix("\r") { line = line.dropLast() }
        return .success(String(line))
    }

    /// Why a file could not be read, in strerror words.
    struct ReadFailure: Error, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }
}
