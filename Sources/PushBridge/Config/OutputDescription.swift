extension BridgeConfig {
    /// The `outputs:` lines of `pushbridge check`: token files by path, never the tokens.
    func describeOutputs() -> [String] {
        guard !outputs.isEmpty else { return ["outputs: none"] }
        var out = ["outputs (\(outputs.count)):"]
        for (index, o) in outputs.enumerated() {
            var line = "  \(index + 1). \(o.name): \(o.kind.key) "
            switch o.kind {
            case .ntfy(let n):
                line += "url=\(n.url) token_file=\(n.tokenFile ?? "-")"
            case .webhook(let w):
                line += "url=\(w.url) method=\(w.method) body=" + (w.body.map { "\"\($0.source)\"" } ?? "display JSON")
                if !w.headers.isEmpty { line += " headers=" + w.headers.map(\.name).joined(separator: ",") }
            case .webpush(let p):
                line += "vapid_key_file=\(p.vapidKeyFile) subject=\(p.subject) subscribe_token_file=\(p.subscribeTokenFile)"
            }
            out.append(line)
            out.append("     routes=\(o.routes.map { $0.isEmpty ? "none (only a fallback or an escalation step sends through it)" : $0.joined(separator: ",") } ?? "all") timeout=\(o.timeout.text) concurrency=\(o.concurrency) tls: ca_file=\(o.tls.caFile ?? "-") insecure=\(o.tls.insecure)")
            var limits: [String] = []
            if let f = o.fallback { limits.append("fallback=\(f) after \(o.fallbackAfter.text)") }
            if let b = o.budget { limits.append("budget=\(b.perDay)/day (digest from \(b.digestFrom) used)") }
            if !limits.isEmpty { out.append("     " + limits.joined(separator: " ")) }
        }
        return out
    }
}
