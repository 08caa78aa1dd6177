/// The key reference of docs/configuration.md, written from `ConfigReference`
/// (`pushbridge help config --markdown`); a test compares the committed file with it.
extension ConfigReference {
    /// The line before the part of docs/configuration.md that `pushbridge help config --markdown` writes.
    static let markdownBegin = "<!-- BEGIN KEY REFERENCE: written by `pushbridge help config --markdown`; edit Sources/PushBridge/Config/ConfigReference*.swift -->"
    /// The line after it.
    static let markdownEnd = "<!-- END KEY REFERENCE -->"

    /// Every key, depth first in file order: a `##` heading per section, `###` per key.
    package static var markdown: String {
        var out: [String] = [markdownBegin, ""]
        func visit(_ path: String) {
            for key in entries(in: path) {
                out += section(key)
                if key.type.hasKeys { visit(key.childPath) }
            }
        }
        visit("")
        out.append(markdownEnd)
        return out.joined(separator: "\n") + "\n"
    }

    /// The GitHub anchor of a key's heading (`broker.tls.ca_file` → `brokertlsca_file`).
    static func anchor(_ key: ConfigKey) -> String {
        String(plainPath(key.path).lowercased().filter { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" })
    }

    private static func section(_ key: ConfigKey) -> [String] {
        let heading = key.parent.isEmpty ? "##" : "###"
        var facts = "**Type:** \(key.type.words)"
        facts += key.required ? " · **required**" : " · **Default:** " + markdownDefault(key)
        var lines = ["\(heading) `\(plainPath(key.path))`", "", facts, "", key.summary, ""]
        let children = entries(in: key.childPath)
        if key.type.hasKeys, !children.isEmpty {
            let links = children.map { "[`\($0.name)`](#\(anchor($0)))" }
            lines += ["Keys: " + links.joined(separator: ", ") + ".", ""]
        }
        lines += ["```yaml"] + snippet(key) + ["```", ""]
        return lines
    }

    private static func markdownDefault(_ key: ConfigKey) -> String {
        if let note = key.defaultNote { return note }
        guard let value = key.defaultValue else { return key.type.isMapping ? "the defaults of its keys" : "none" }
        return "`" + flowYAML(value) + "`"
    }
}
