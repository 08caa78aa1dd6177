/// The reference as text: `pushbridge help config [KEY]` and the key reference of
/// docs/configuration.md, with examples written as the YAML they stand for.
extension ConfigReference {
    /// A key's path as people write it: without `[]` (`extension.filters.changed`).
    static func plainPath(_ path: String) -> String {
        var out = ""
        var depth = 0
        for c in path {
            if c == "[" { depth += 1 } else if c == "]" { depth -= 1 } else if depth == 0 { out.append(c) }
        }
        return out
    }

    /// The key `written` names (`routes.alert.title`, `routes[0].qos`, `routes[].qos`).
    package static func lookup(_ written: String) -> ConfigKey? {
        let plain = plainPath(written)
        return all.first { plainPath($0.path) == plain }
    }

    /// The nearest key path to a `written` one that names no key, for "did you mean".
    package static func suggestion(for written: String) -> String? {
        let plain = plainPath(written)
        let paths = all.map { plainPath($0.path) }
        if let dot = plain.lastIndex(of: ".") {
            let parent = String(plain[..<dot]), name = String(plain[plain.index(after: dot)...])
            let siblings = all.filter { plainPath($0.parent) == parent }.map(\.name)
            if let near = KeySuggestion.nearest(to: name, in: siblings) { return parent + "." + near }
        }
        return KeySuggestion.nearest(to: plain, in: paths)
    }

    /// Every key with its type, one per line: `pushbridge help config`.
    package static var index: String {
        let width = all.map { plainPath($0.path).count }.max() ?? 0
        let lines = all.map { key in
            plainPath(key.path).padding(toLength: width + 2, withPad: " ", startingAt: 0) + key.type.words
                + (key.required ? " (required)" : "")
        }
        return (["bridge.yml keys (pushbridge help config KEY for one):"] + lines).joined(separator: "\n")
    }

    /// One key's reference: `pushbridge help config KEY`.
    package static func help(_ key: ConfigKey) -> String {
        var lines = [plainPath(key.path), "  type:    " + key.type.words + (key.required ? " (required)" : ""),
                     "  default: " + defaultText(key), ""]
        lines += wrap(key.summary, width: 88).map { "  " + $0 }
        let keys = keys(in: key.childPath)
        if key.type.hasKeys, !keys.isEmpty { lines += ["", "  keys: " + keys.joined(separator: ", ")] }
        lines += ["", "  example:"] + snippet(key).map { "    " + $0 }
        return lines.joined(separator: "\n")
    }

    /// The default in words: the note, the value as YAML, or `none`.
    static func defaultText(_ key: ConfigKey) -> String {
        if key.required { return "none (required)" }
        if let note = key.defaultNote { return note }
        if let value = key.defaultValue { return flowYAML(value) }
        return key.type.isMapping ? "the defaults of its keys" : "none"
    }

    /// The example as the lines of a `bridge.yml` that sets it.
    static func snippet(_ key: ConfigKey) -> [String] {
        blockYAML(tree(path: key.path, value: key.example))
    }

    /// A document that sets `value` at `path`: `routes[].qos` = 0 is `{routes: [{qos: 0}]}`.
    static func tree(path: String, value: JSONValue) -> JSONValue {
        var out = value
        for segment in path.split(separator: ".").reversed() {
            if segment.hasSuffix("[]") {
                out = .object([String(segment.dropLast(2)): .array([out])])
            } else {
                out = .object([String(segment): out])
            }
        }
        return out
    }

    /// Block-style YAML lines of a mapping (lists of mappings as `- ` items).
    static func blockYAML(_ value: JSONValue, indent: Int = 0) -> [String] {
        guard case .object(let members) = value else { return [String(repeating: " ", count: indent) + flowYAML(value)] }
        let pad = String(repeating: " ", count: indent)
        var lines: [String] = []
        for (key, child) in members {
            switch child {
            case .object(let o) where !o.isEmpty:
                lines.append(pad + key + ":")
                lines += blockYAML(child, indent: indent + 2)
            case .array(let items) where items.contains(where: { if case .object = $0 { true } else { false } }):
                lines.append(pad + key + ":")
                for item in items {
                    let sub = blockYAML(item, indent: indent + 4)
                    lines.append(pad + "  - " + sub[0].dropFirst(indent + 4))
                    lines += sub.dropFirst()
                }
            default:
                lines.append(pad + key + ": " + flowYAML(child))
            }
        }
        return lines
    }

    /// A value as flow YAML: plain where that reads back as the same string, else quoted.
    static func flowYAML(_ value: JSONValue) -> String {
        switch value {
        case .string(let s):
            return isPlainSafe(s) ? s : value.jsonText
        case .array(let items):
            return "[" + items.map(flowYAML).joined(separator: ", ") + "]"
        case .object(let members):
            return "{" + members.map { $0.key + ": " + flowYAML($0.value) }.joined(separator: ", ") + "}"
        default:
            return value.jsonText
        }
    }

    /// Letters, digits and `_ . / @ + -`, starting with a letter, `/` or `_`, and not a word
    /// YAML reads as something else.
    private static func isPlainSafe(_ s: String) -> Bool {
        guard let first = s.unicodeScalars.first,
              first.properties.isAlphabetic || first == "/" || first == "_" else { return false }
        let reserved: Set<String> = ["true", "false", "null", "yes", "no", "on", "off", "y", "n", "~"]
        guard !reserved.contains(s.lowercased()) else { return false }
        return s.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "_./@+-".unicodeScalars.contains($0)) }
    }

    /// `text` in lines of at most `width` characters, broken at spaces.
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}
