/// Reads `state:` (docs/scale-out.md).
extension ConfigReader {
    /// `state:`; `journal` says whether the file has a journal (Redis needs one in front of it).
    func readState(_ node: YAMLNode, baseDirectory: String, hasJournal: Bool) -> StateConfig? {
        guard let f = fields(node, key: "state", context: "state", known: ConfigReference.keys(in: "state")) else { return nil }
        var state = StateConfig()
        if let n = f["redis"] {
            state.redis = readRedisState(n, baseDirectory: baseDirectory)
            if state.redis != nil, !hasJournal {
                error("'state.redis' needs a 'journal': each replica acknowledges a message once it is in its own journal "
                      + "and removes it once its decision is stored in Redis; add 'journal: {path: /var/lib/pushbridge/journal}'",
                      at: f.keyMarks["redis"] ?? n.mark)
            }
        }
        return state
    }

    private func readRedisState(_ node: YAMLNode, baseDirectory: String) -> RedisStateConfig? {
        guard let f = fields(node, key: "redis", context: "state.redis", known: ConfigReference.keys(in: "state.redis")) else { return nil }
        guard let n = required(f, "url", in: "state.redis"), let url = string(n, key: "url") else { return nil }
        var config: RedisStateConfig
        switch RedisAddress.parse(url) {
        case .success(let address): config = RedisStateConfig(address: address)
        case .failure(let why):
            // The message quotes the URL: never with its password.
            let text = why.description.replacingOccurrences(of: url, with: Self.maskingPassword(url))
            error("invalid 'url': \(text)", at: n.mark)
            return nil
        }
        if let n = f["password_file"], let file = string(n, key: "password_file") {
            if config.address.password != nil {
                error("the url has a password and 'password_file' is set: keep one", at: n.mark)
            } else {
                let resolved = Self.resolve(file, against: baseDirectory)
                config.passwordFile = resolved
                switch Self.firstLine(ofFile: resolved) {
                case .success(let line): config.address.password = line
                case .failure(let reason): error("cannot read 'password_file' '\(file)': \(reason)", at: n.mark)
                }
            }
        }
        if let n = f["prefix"], let v = string(n, key: "prefix") {
            if v.isEmpty || v.contains(where: { $0 == " " || $0 == "\n" }) {
                error("'prefix' must be a non-empty word without spaces (every key starts with it), got \(show(n))", at: n.mark)
            } else {
                config.prefix = v
            }
        }
        if let n = f["claim_after"], let v = duration(n, key: "claim_after", minimum: .seconds(1), maximum: .seconds(86_400)) {
            config.claimAfter = v
        }
        return config
    }

    /// `url` with the password between `://` and `@` replaced by `***` (for messages).
    static func maskingPassword(_ url: String) -> String {
        guard let scheme = url.range(of: "://"), let at = url.lastIndex(of: "@"), at > scheme.upperBound else { return url }
        let user = url[scheme.upperBound..<at]
        guard let colon = user.firstIndex(of: ":") else { return url }
        return String(url[..<url.index(after: colon)]) + "***" + String(url[at...])
    }
}
