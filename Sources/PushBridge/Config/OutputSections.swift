/// Reads `display:`, `dead_letter:`, `journal:` and `monitoring:` (docs/configuration.md).
extension ConfigReader {
    func readDisplay(_ node: YAMLNode) -> DisplayConfig {
        var display = DisplayConfig()
        guard let f = fields(node, key: "display", context: "display",
                             known: ConfigReference.keys(in: "display")) else { return display }
        if let n = f["topic"], let t = publishTemplate(n, key: "topic") { display.topic = t }
        if let n = f["qos"], let v = choice(n, key: "qos", allowed: [0, 1, 2]) { display.qos = v }
        if let n = f["retain"], let v = bool(n, key: "retain") { display.retain = v }
        if let n = f["format"], let v: DisplayFormat = word(n, key: "format") { display.format = v }
        return display
    }

    func readDeadLetter(_ node: YAMLNode) -> DeadLetterConfig? {
        guard let f = fields(node, key: "dead_letter", context: "dead_letter", known: ConfigReference.keys(in: "dead_letter")) else { return nil }
        guard let n = required(f, "topic", in: "dead_letter"), let t = publishTemplate(n, key: "topic") else { return nil }
        var dead = DeadLetterConfig(topic: t)
        if let q = f["qos"], let v = choice(q, key: "qos", allowed: [0, 1, 2]) { dead.qos = v }
        return dead
    }

    func readJournal(_ node: YAMLNode) -> JournalConfig? {
        guard let f = fields(node, key: "journal", context: "journal", known: ConfigReference.keys(in: "journal")) else { return nil }
        var journal = JournalConfig()
        if let n = f["path"], let v = string(n, key: "path") {
            if v.isEmpty { error("'path' must not be empty", at: n.mark) } else { journal.path = v }
        }
        if let n = f["fsync"], let v: FsyncPolicy = word(n, key: "fsync") { journal.fsync = v }
        if let n = f["max_messages"], let v = int(n, key: "max_messages", range: 1...Int.max) { journal.maxMessages = v }
        return journal
    }

    func readMonitoring(_ node: YAMLNode) -> MonitoringConfig {
        var mon = MonitoringConfig()
        guard let f = fields(node, key: "monitoring", context: "monitoring",
                             known: ConfigReference.keys(in: "monitoring"))
        else { return mon }
        let topics: [(String, WritableKeyPath<MonitoringConfig, String?>)] =
            [("status_topic", \.statusTopic), ("stats_topic", \.statsTopic), ("trace_topic", \.traceTopic)]
        for (key, path) in topics {
            var value = mon[keyPath: path]
            if f.isExplicitNull(key) {
                value = nil
            } else if let n = f[key], let v = string(n, key: key) {
                if let problem = TopicFilter.validatePublishTopic(v) {
                    error("invalid '\(key)' '\(v)': \(problem)", at: n.mark)
                } else {
                    value = v
                }
            }
            mon[keyPath: path] = value
        }
        if let n = f["interval"], let v = duration(n, key: "interval", minimum: .milliseconds(100)) { mon.interval = v }
        if let n = f["max_topics"], let v = int(n, key: "max_topics", range: 1...Int.max) { mon.maxTopics = v }
        if let n = f["http"], let v = string(n, key: "http") {
            do { mon.http = try HostPort(parsing: v) } catch {
                self.error("invalid 'http' \(show(n)): \(error)", at: n.mark)
            }
        }
        readHTTPAccess(f, into: &mon)
        if let n = f["tls"] {
            mon.tls = readMonitoringTLS(n)
            if f["http"] == nil { error("'tls' needs 'http' (the address to serve HTTPS on)", at: f.keyMarks["tls"] ?? n.mark) }
        }
        if let n = f["log_level"], let v: LogLevel = word(n, key: "log_level") { mon.logLevel = v }
        if let n = f["log_format"], let v: LogFormat = word(n, key: "log_format") { mon.logFormat = v }
        return mon
    }

    /// `http_auth`, read when `http` is set: required unless `http` is a loopback address.
    /// With `http` written but null (an empty `${PUSHBRIDGE_HTTP:-}`), `http_auth` is not read,
    /// so one file serves with and without the HTTP server.
    private func readHTTPAccess(_ f: ConfigFields, into mon: inout MonitoringConfig) {
        if let n = f["http_auth"] {
            if !f.has("http") {
                error("'http_auth' needs 'http' (the address of the server it guards)", at: f.keyMarks["http_auth"] ?? n.mark)
            }
            if !f.has("http") || f["http"] != nil { mon.httpAuth = readHTTPAuth(n, http: mon.http) }
            return
        }
        guard let http = mon.http, !http.isLoopback, let n = f["http"] else { return }
        error("'http' \(show(n)) is not a loopback address, so 'http_auth' is required: add 'http_auth: {token_file: <file whose first line is the token>}' under 'monitoring', or 'http_auth: none' to leave the server open to everyone who can reach it", at: n.mark)
    }

    /// A topic template: compiled, and when constant, a valid publish topic.
    private func publishTemplate(_ node: YAMLNode, key: String) -> Template? {
        guard let t = template(node, key: key) else { return nil }
        if !t.hasHoles, let problem = TopicFilter.validatePublishTopic(t.source) {
            error("invalid '\(key)' '\(t.source)': \(problem)", at: node.mark)
            return nil
        }
        if LoopCheck.pieces(of: t.source).contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "#") }) {
            error("'\(key)' must not contain the wildcards '+' or '#'", at: node.mark)
            return nil
        }
        return t
    }
}
