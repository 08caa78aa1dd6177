/// Reads a route's `digest:` (docs/configuration.md, "routes[].digest").
extension ConfigReader {
    static let digestKeys = ConfigReference.keys(in: "routes[].digest")

    /// `digest:` of a route; every problem is reported at its value.
    func readDigest(_ node: YAMLNode) -> DigestConfig? {
        guard let f = fields(node, key: "digest", context: "digest", known: Self.digestKeys) else { return nil }
        var window = DigestConfig.defaultWindow
        if let n = f["window"] {
            guard let w = duration(n, key: "window", minimum: Self.positive) else { return nil }
            window = w
        }
        var max = 3
        if let n = f["max"] {
            guard let m = int(n, key: "max", range: 0...Int.max) else { return nil }
            max = m
        }
        var key: Template
        if let n = f["key"] {
            guard let t = template(n, key: "key") else { return nil }
            key = t
        } else {
            guard let t = try? compiler.template("{{ route }}") else { return nil }
            key = t
        }
        var digest = DigestConfig(window: window, max: max, key: key)
        if let n = f["title"] { digest.title = template(n, key: "title") }
        if let n = f["body"] { digest.body = template(n, key: "body") }
        digest.mark = f.mark
        return digest
    }

    /// A digest without a journal keeps its held alerts in memory: a restart loses them.
    func checkDigests(_ config: BridgeConfig) {
        guard config.journal == nil else { return }
        for route in config.routes {
            guard let digest = route.digest else { continue }
            warn("route '\(route.name)' has a digest but there is no 'journal': its held alerts live in memory and a restart loses them",
                 at: digest.mark ?? YAMLMark(line: 0, column: 0))
        }
    }
}
