/// Reads `outputs:`, the services alerts are delivered to besides the display topic.
extension ConfigReader {
    /// The kinds an output can be (exactly one key of these per entry).
    enum OutputKindKey: String, CaseIterable {
        case ntfy, webhook, webpush
    }

    /// The kinds' keys.
    static let outputKinds = OutputKindKey.allCases.map(\.rawValue)
    static let outputKeys = ConfigReference.keys(in: "outputs[]")

    /// The list, with each entry's `routes` names (checked against the routes afterwards).
    /// `monitoringHTTP`: whether `monitoring.http` is set (a `webpush` output needs it).
    func readOutputs(_ node: YAMLNode, baseDirectory: String, monitoringHTTP: Bool) -> ([OutputConfig], [(String, YAMLScalar)]) {
        guard let items = sequence(node, key: "outputs") else { return ([], []) }
        var outputs: [OutputConfig] = []
        var routeRefs: [(String, YAMLScalar)] = []
        var names: [String: YAMLMark] = [:]
        var webPushAt: YAMLMark?
        for item in items {
            guard let f = fields(item, key: "outputs", context: "an output", known: Self.outputKeys) else { continue }
            guard let nameNode = required(f, "name", in: "outputs"), let name = string(nameNode, key: "name") else { continue }
            if name.isEmpty {
                error("'name' must not be empty", at: nameNode.mark)
                continue
            }
            if let first = names[name] {
                error("duplicate output name '\(name)' (first at line \(first.line + 1)); give each output a unique 'name'",
                      at: nameNode.mark)
                continue
            }
            names[name] = nameNode.mark
            let kinds = OutputKindKey.allCases.filter { f.has($0.rawValue) }
            guard kinds.count == 1 else {
                if kinds.isEmpty {
                    error("output '\(name)' needs one of \(Self.list(Self.outputKinds.map { "'\($0)'" }))", at: f.mark)
                } else {
                    error("output '\(name)' has \(kinds.map { "'\($0.rawValue)'" }.joined(separator: " and ")): one kind per output", at: f.keyMarks[kinds[1].rawValue] ?? f.mark)
                }
                continue
            }
            var kind: OutputKindConfig?
            if let kindNode = f.values[kinds[0].rawValue] {
                switch kinds[0] {
                case .ntfy: kind = readNtfy(kindNode, baseDirectory: baseDirectory).map(OutputKindConfig.ntfy)
                case .webhook: kind = readWebhook(kindNode).map(OutputKindConfig.webhook)
                case .webpush:
                    if let first = webPushAt {
                        error("output '\(name)' is a second 'webpush' output (the first at line \(first.line + 1)): one Web Push output serves every subscription",
                              at: f.keyMarks["webpush"] ?? f.mark)
                    } else {
                        let at = f.keyMarks["webpush"] ?? f.mark
                        webPushAt = at
                        if !monitoringHTTP {
                            error("output '\(name)': 'webpush' needs 'monitoring.http' (browsers subscribe on its /subscribe page)", at: at)
                        }
                        kind = readWebPush(kindNode).map(OutputKindConfig.webpush)
                    }
                }
            }
            // The common keys are read even when the kind has errors: one run reports them all.
            var output = OutputConfig(name: name, kind: kind ?? .webhook(WebhookConfig(url: "")))
            if let n = f["routes"], let list = strings(n, key: "routes") {
                output.routes = list.map(\.0)
                routeRefs += list
            }
            if let n = f["timeout"], let v = duration(n, key: "timeout", minimum: .milliseconds(100), maximum: .seconds(600)) {
                output.timeout = v
            }
            if let n = f["concurrency"], let v = int(n, key: "concurrency", range: 1...256) { output.concurrency = v }
            if let n = f["tls"] { output.tls = readOutputTLS(n, baseDirectory: baseDirectory) }
            readFallbackAndBudget(f, into: &output)
            guard kind != nil else { continue }
            outputs.append(output)
        }
        checkFallbacks(outputs)
        return (outputs, routeRefs)
    }

    private func readNtfy(_ node: YAMLNode, baseDirectory: String) -> NtfyConfig? {
        guard let f = fields(node, key: "ntfy", context: "ntfy", known: ConfigReference.keys(in: "outputs[].ntfy")) else { return nil }
        var url = required(f, "url", in: "ntfy").flatMap { httpURL($0, key: "url") }
        if let u = url, let n = f["url"], HTTPURLParts(u)?.path.split(separator: "/").isEmpty ?? true {
            error("'url' must name the topic, e.g. https://ntfy.example.com/home, got \"\(u)\"", at: n.mark)
            url = nil
        }
        var ntfy = NtfyConfig(url: url ?? "")
        if let n = f["token_file"], let file = string(n, key: "token_file") {
            let resolved = Self.resolve(file, against: baseDirectory)
            ntfy.tokenFile = resolved
            switch Self.firstLine(ofFile: resolved) {
            case .success(let line) where !line.isEmpty: ntfy.token = line
            case .success: error("'token_file' '\(file)' is empty", at: n.mark)
            case .failure(let reason): error("cannot read 'token_file' '\(file)': \(reason)", at: n.mark)
            }
        }
        return url == nil ? nil : ntfy
    }

    private func readWebhook(_ node: YAMLNode) -> WebhookConfig? {
        guard let f = fields(node, key: "webhook", context: "webhook", known: ConfigReference.keys(in: "outputs[].webhook")) else { return nil }
        let url = required(f, "url", in: "webhook").flatMap { httpURL($0, key: "url") }
        var hook = WebhookConfig(url: url ?? "")
        if let n = f["method"], let v = word(n, key: "method", allowed: ["POST", "PUT", "PATCH"]) { hook.method = v }
        if let n = f["headers"] { hook.headers = headers(n) }
        if let n = f["body"] { hook.body = template(n, key: "body") }
        return url == nil ? nil : hook
    }

    private func readOutputTLS(_ node: YAMLNode, baseDirectory: String) -> OutputTLSConfig {
        var tls = OutputTLSConfig()
        guard let f = fields(node, key: "tls", context: "an output's tls", known: ConfigReference.keys(in: "outputs[].tls")) else { return tls }
        if let n = f["ca_file"], let v = string(n, key: "ca_file") { tls.caFile = Self.resolve(v, against: baseDirectory) }
        if let n = f["insecure"], let v = bool(n, key: "insecure") { tls.insecure = v }
        return tls
    }

    /// An `http://` or `https://` URL with a host.
    private func httpURL(_ node: YAMLNode, key: String) -> String? {
        guard let v = string(node, key: key) else { return nil }
        guard let parts = HTTPURLParts(v), !parts.host.isEmpty else {
            error("'\(key)' must be an http:// or https:// URL with a host, got \(show(node))", at: node.mark)
            return nil
        }
        return v
    }

    /// RFC 9110 `tchar`.
    /// `headers:`: a mapping of header names (HTTP tokens) to one-line values.
    func headers(_ node: YAMLNode) -> [(name: String, value: String)] {
        guard case .mapping(let pairs, _) = node else {
            error("'headers' must be a mapping of header names to values, got \(show(node))", at: node.mark)
            return []
        }
        var out: [(name: String, value: String)] = []
        for pair in pairs {
            guard case .scalar(let k) = pair.key, let value = string(pair.value, key: k.value) else { continue }
            if k.value.isEmpty || !k.value.utf8.allSatisfy(Self.isTokenByte) {
                error("invalid header name \"\(k.value)\": letters, digits and !#$%&'*+-.^_`|~ only", at: k.mark)
            } else if value.utf8.contains(where: { $0 == 10 || $0 == 13 || $0 == 0 }) {
                error("header '\(k.value)' must be one line", at: pair.value.mark)
            } else {
                out.append((k.value, value))
            }
        }
        return out
    }

    static func isTokenByte(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || "!#$%&'*+-.^_`|~".utf8.contains(b)
    }
}

/// The host and path of an `http(s)://` URL (what the config checks need).
struct HTTPURLParts {
    var host: String
    var path: String

    init?(_ url: String) {
        let lower = url.lowercased()
        let rest: Substring
        if lower.hasPrefix("https://") { rest = url.dropFirst(8) }
        else if lower.hasPrefix("http://") { rest = url.dropFirst(7) }
        else { return nil }
        guard !rest.contains(where: { $0 == " " || $0 == "\n" || $0 == "\r" }) else { return nil }
        let end = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        host = String(rest[..<end])
        let tail = rest[end...]
        let pathEnd = tail.firstIndex(where: { $0 == "?" || $0 == "#" }) ?? tail.endIndex
        path = String(tail[..<pathEnd])
    }
}
