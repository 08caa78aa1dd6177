import Foundation

/// The top-level `attachments:` (docs/attachments.md): how long an alert waits for its
/// attachments, the per-type limits, and the store's bounds.
struct AttachmentsConfig: Sendable, Equatable {
    /// The longest an alert is held for its attachments.
    var wait: Duration = .seconds(5)
    /// Apple's limits: image 10 MB, audio 5 MB, video 50 MB.
    var maxImage = 10_000_000
    var maxAudio = 5_000_000
    var maxVideo = 50_000_000
    /// How long a stored attachment is served.
    var keep: Duration = .seconds(86_400)
    /// The store's bound; the oldest attachments are evicted first.
    var totalBytes = 500_000_000
    /// The base URL phones and browsers fetch attachments from; `nil`: `monitoring.http`'s own.
    var publicURL: String? = nil

    /// The limit for bytes of `kind`.
    func limit(for kind: MediaType.Kind) -> Int {
        switch kind {
        case .image: maxImage
        case .audio: maxAudio
        case .video: maxVideo
        }
    }

    /// The largest of the three limits: more bytes than this are never kept.
    var largestLimit: Int { max(maxImage, maxAudio, maxVideo) }
}

/// One entry of a route's `attachments:`: where the bytes come from.
struct AttachmentSpec: Sendable {
    /// Unique within the route (`attachment-1`, … by default).
    var identifier: String
    var source: Source
    /// How old the newest bytes on a `from_topic` may be when the alert arrives.
    var maxAge: Duration = .seconds(60)
    /// Extra request headers of a `url` source (`token_file` adds `Authorization: Bearer`).
    var headers: [(name: String, value: String)] = []
    /// The file `token_file` named (its token is in `headers`, never printed).
    var tokenFile: String? = nil

    enum Source: Sendable {
        /// Bytes published on an MQTT topic: the template, and the filter subscribed for it
        /// (each level with a hole read as `+`).
        case topic(Template, filter: String)
        /// Bytes fetched over HTTP: the template (scheme, host and port literal).
        case url(Template)
    }

    /// `from_topic frigate/+/person/snapshot` or `url http://frigate:5000/api/…`: for `check`.
    var sourceText: String {
        switch source {
        case .topic(let t, _): "from_topic \(t.source)"
        case .url(let t): "url \(t.source)"
        }
    }
}

extension BridgeConfig {
    /// The `from_topic` filters of every route (each hole read as `+`), without repeats:
    /// subscribed from the start, so the newest bytes are there when an alert asks.
    var attachmentTopicFilters: [String] {
        var out: [String] = []
        for route in routes {
            for spec in route.attachments {
                if case .topic(_, let filter) = spec.source, !out.contains(filter) { out.append(filter) }
            }
        }
        return out
    }
}

extension ConfigReader {
    /// Reads the top-level `attachments:`; every problem is reported, positioned at its value.
    func readAttachmentsSettings(_ node: YAMLNode) -> AttachmentsConfig {
        var config = AttachmentsConfig()
        guard let f = fields(node, key: "attachments", context: "attachments",
                             known: ConfigReference.keys(in: "attachments")) else { return config }
        if let n = f["wait"], let v = duration(n, key: "wait", minimum: .zero, maximum: .seconds(300)) { config.wait = v }
        if let n = f["keep"], let v = duration(n, key: "keep", minimum: .seconds(1)) { config.keep = v }
        if let n = f["total_bytes"], let v = byteCount(n, key: "total_bytes") { config.totalBytes = v }
        if let n = f["max_bytes"], let m = fields(n, key: "max_bytes", context: "max_bytes",
                                                 known: ConfigReference.keys(in: "attachments.max_bytes")) {
            if let v = m["image"].flatMap({ byteCount($0, key: "image") }) { config.maxImage = v }
            if let v = m["audio"].flatMap({ byteCount($0, key: "audio") }) { config.maxAudio = v }
            if let v = m["video"].flatMap({ byteCount($0, key: "video") }) { config.maxVideo = v }
        }
        if let n = f["public_url"], !f.isExplicitNull("public_url"), let v = string(n, key: "public_url") {
            if let parts = HTTPURLParts(v), !parts.host.isEmpty, !v.contains("{{"), !v.contains("?"), !v.contains("#") {
                config.publicURL = v.hasSuffix("/") ? String(v.dropLast()) : v
            } else {
                error("'public_url' must be an http:// or https:// base URL with a host (no query), e.g. https://bridge.example.com:9464, got \(show(n))",
                      at: n.mark)
            }
        }
        return config
    }

    /// A positive number of bytes (`10MB`, `512KiB`, `200000`).
    func byteCount(_ node: YAMLNode, key: String) -> Int? {
        guard let s = scalar(node, key: key, expected: "a size such as 10MB") else { return nil }
        guard let v = ByteCount.parse(s.value), v > 0 else {
            error("'\(key)' must be a size such as 10MB, 512KB or 200000 (bytes), got \(show(node))", at: s.mark)
            return nil
        }
        return v
    }

    /// Reads a route's `attachments:` list (`route` names it in messages).
    func readAttachmentSpecs(_ node: YAMLNode, route: String) -> [AttachmentSpec] {
        guard let items = sequence(node, key: "attachments") else { return [] }
        var specs: [AttachmentSpec] = []
        var seen: [String: YAMLMark] = [:]
        for (index, item) in items.enumerated() {
            guard let f = fields(item, key: "attachments", context: "attachment",
                                 known: ConfigReference.keys(in: "routes[].attachments[]")) else { continue }
            var identifier = "attachment-\(index + 1)"
            var identifierMark = f.mark
            if let n = f["identifier"], let v = string(n, key: "identifier") {
                identifierMark = n.mark
                if Self.isAttachmentIdentifier(v) {
                    identifier = v
                } else {
                    error("'identifier' must be 1 to 64 letters, digits, '-' or '_' (it names the stored file), got \(show(n))", at: n.mark)
                    continue
                }
            }
            if let first = seen[identifier] {
                error("route '\(route)': attachment identifier '\(identifier)' is used twice (first at line \(first.line + 1)); identifiers are unique within a request",
                      at: identifierMark)
                continue
            }
            seen[identifier] = identifierMark
            let source: AttachmentSpec.Source
            switch (f["from_topic"], f["url"]) {
            case (let t?, nil):
                guard let s = readTopicSource(t) else { continue }
                source = s
            case (nil, let u?):
                guard let s = readURLSource(u) else { continue }
                source = s
            case (_?, _?):
                error("an attachment takes 'from_topic' or 'url', not both", at: f.keyMarks["url"] ?? f.mark)
                continue
            case (nil, nil):
                error("an attachment needs 'from_topic' (an MQTT topic carrying the bytes) or 'url' (an http:// or https:// URL)", at: f.mark)
                continue
            }
            var spec = AttachmentSpec(identifier: identifier, source: source)
            if let n = f["max_age"] {
                if case .url = source {
                    error("'max_age' applies to 'from_topic' only (a URL is fetched when the alert arrives)", at: f.keyMarks["max_age"] ?? n.mark)
                } else if let v = duration(n, key: "max_age", minimum: .zero) {
                    spec.maxAge = v
                }
            }
            for key in ["headers", "token_file"] where f[key] != nil {
                if case .topic = source {
                    error("'\(key)' applies to 'url' only", at: f.keyMarks[key] ?? f.mark)
                }
            }
            if case .url = source {
                readFetchHeaders(f, into: &spec)
            }
            specs.append(spec)
        }
        return specs
    }

    /// Letters, digits, `-` and `_`, 1 to 64 of them: safe as a file and URL name.
    static func isAttachmentIdentifier(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.count <= 64 && s.utf8.allSatisfy {
            ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D || $0 == 0x5F
        }
    }

    private func readTopicSource(_ node: YAMLNode) -> AttachmentSpec.Source? {
        guard let t = template(node, key: "from_topic"), let filter = keptTopicFilter(t, key: "from_topic", at: node) else { return nil }
        return .topic(t, filter: filter)
    }

    private func readURLSource(_ node: YAMLNode) -> AttachmentSpec.Source? {
        guard let t = template(node, key: "url") else { return nil }
        // Scheme, host and port must be literal text: the first hole comes after the path's `/`.
        let pieces = t.literalPieces
        let lead = pieces.prefix { $0 != nil }.compactMap { $0 }.joined()
        let hasHoles = pieces.contains { $0 == nil }
        guard let parts = HTTPURLParts(lead), !parts.host.isEmpty, !parts.host.contains("@") else {
            let hint = hasHoles ? " (a '{{ }}' may only fill the path or query: the scheme, host and port are literal, so a message can choose which picture but never which server)" : ""
            error("'url' must be an http:// or https:// URL with a literal host, got \(show(node))\(hint)", at: node.mark)
            return nil
        }
        let schemeLength = lead.lowercased().hasPrefix("https://") ? 8 : 7
        let afterScheme = lead.dropFirst(schemeLength)
        if hasHoles, !afterScheme.contains(where: { $0 == "/" || $0 == "?" }) {
            error("'url' has a '{{ }}' in its host or port: only the path or query may come from the message (a message chooses which picture, never which server), got \(show(node))",
                  at: node.mark)
            return nil
        }
        return .url(t)
    }

    private func readFetchHeaders(_ f: ConfigFields, into spec: inout AttachmentSpec) {
        if let n = f["headers"] { spec.headers = headers(n) }
        if let n = f["token_file"], let file = string(n, key: "token_file") {
            let directory = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : ""
            let resolved = Self.resolve(file, against: directory)
            spec.tokenFile = resolved
            switch Self.firstLine(ofFile: resolved) {
            case .success(let line) where !line.isEmpty: spec.headers.append(("Authorization", "Bearer \(line)"))
            case .success: error("'token_file' '\(file)' is empty", at: n.mark)
            case .failure(let reason): error("cannot read 'token_file' '\(file)': \(reason)", at: n.mark)
            }
        }
    }
}
