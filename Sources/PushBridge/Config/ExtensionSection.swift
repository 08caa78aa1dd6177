import Foundation

/// Reads `extension:` and its declarative filters (docs/configuration.md, "extension").
extension ConfigReader {
    static let extensionKeys = ConfigReference.keys(in: "extension")
    static let filterKeys = ConfigReference.keys(in: "extension.filters[]")
    /// The keys of a filter that are no action.
    static let filterModifiers = ["name", "when", "routes"]
    static let filterActions = filterKeys.filter { !filterModifiers.contains($0) }
    static let setFields = ConfigReference.keys(in: "extension.filters[].set")

    /// The section and, for each filter, the `routes:` names with their scalars (checked later).
    func readExtension(_ node: YAMLNode) -> (ExtensionConfig, [[(String, YAMLScalar)]]) {
        var ext = ExtensionConfig()
        var routeRefs: [[(String, YAMLScalar)]] = []
        guard let f = fields(node, key: "extension", context: "extension", known: Self.extensionKeys) else {
            return (ext, routeRefs)
        }
        if let n = f["time_limit"], let v = duration(n, key: "time_limit", minimum: Self.positive) { ext.timeLimit = v }
        if let n = f["expire_grace"], let v = duration(n, key: "expire_grace", minimum: .zero) { ext.expireGrace = v }
        if let n = f["concurrency"], let v = int(n, key: "concurrency", range: 1...Int.max) { ext.concurrency = v }
        if let n = f["on_failure"], let v: FailurePolicy = word(n, key: "on_failure") { ext.onFailure = v }
        if let n = f["command"], let argv = strings(n, key: "command") {
            if argv.isEmpty || argv[0].0.isEmpty {
                error("'command' must be a non-empty list: the program and its arguments", at: n.mark)
            } else {
                ext.command = argv.map(\.0)
            }
        }
        if let n = f["filters"], let items = sequence(n, key: "filters") {
            var names: [String: YAMLMark] = [:]
            for (index, item) in items.enumerated() {
                guard let (filter, nameMark, refs) = readFilter(item, index: index + 1) else { continue }
                if let first = names[filter.name] {
                    error("duplicate filter name '\(filter.name)' (first at line \(first.line + 1))", at: nameMark)
                    continue
                }
                names[filter.name] = nameMark
                ext.filters.append(filter)
                routeRefs.append(refs)
            }
        }
        return (ext, routeRefs)
    }

    private func readFilter(_ node: YAMLNode, index: Int) -> (FilterConfig, YAMLMark, [(String, YAMLScalar)])? {
        guard let f = fields(node, key: "filters", context: "filter",
                             known: Self.filterKeys) else { return nil }
        let actions = Self.filterActions.filter { f.has($0) }
        guard let actionKey = actions.first else {
            error("filter needs one action key: " + Self.list(Self.filterActions.map { "'\($0)'" }), at: f.mark)
            return nil
        }
        if actions.count > 1 {
            error("filter has more than one action key ('\(actions.joined(separator: "', '"))'); split it into one filter each",
                  at: f.keyMarks[actions[1]] ?? f.mark)
            return nil
        }
        var name = "\(actionKey)#\(index)"
        var nameMark = f.keyMarks[actionKey] ?? f.mark
        if let n = f["name"], let v = string(n, key: "name") {
            if v.isEmpty { error("'name' must not be empty", at: n.mark) } else { name = v; nameMark = n.mark }
        }
        guard let kind = FilterAction.Kind(rawValue: actionKey) else {
            error("'\(actionKey)' is a filter key this version cannot read; use one of "
                  + Self.list(FilterAction.Kind.allCases.map { "'\($0.rawValue)'" }), at: f.keyMarks[actionKey] ?? f.mark)
            return nil
        }
        guard let actionNode = f.values[actionKey], let action = readAction(kind, actionNode) else { return nil }
        var filter = FilterConfig(name: name, action: action)
        if kind.remembers, let n = maxKeysNode(actionNode), let v = int(n, key: "max_keys", range: 1...10_000_000) {
            filter.maxKeys = v
        }
        filter.definition = Self.canonicalText(node, skipping: "name")
        if let n = f["when"] { filter.when = expression(n, key: "when") }
        var refs: [(String, YAMLScalar)] = []
        if let n = f["routes"], let list = strings(n, key: "routes") {
            filter.routes = list.map(\.0)
            refs = list
        }
        return (filter, nameMark, refs)
    }

    /// A node as canonical text: scalars JSON-quoted with their style, mappings in file order.
    static func canonicalText(_ node: YAMLNode, skipping skipped: String? = nil) -> String {
        switch node {
        case .scalar(let s):
            return (s.style.isQuoted || s.forcedString ? "s" : "p") + JSONValue.string(s.value).jsonText
        case .sequence(let items, _):
            return "[" + items.map { canonicalText($0) }.joined(separator: ",") + "]"
        case .mapping(let pairs, _):
            var parts: [String] = []
            for pair in pairs {
                if case .scalar(let k) = pair.key, k.value == skipped { continue }
                parts.append(canonicalText(pair.key) + ":" + canonicalText(pair.value))
            }
            return "{" + parts.joined(separator: ",") + "}"
        }
    }

    /// The value of a key that must be present and not null.
    /// A mapping of content fields to templates, as `set` takes (also a condition's
    /// escalation `set` and `clear_alert`): each constant value checked like an alert's.
    func contentSets(_ node: YAMLNode, key: String) -> [(field: String, value: Template)]? {
        guard let f = fields(node, key: key, context: key, known: Self.setFields) else { return nil }
        guard case .mapping(let pairs, _) = node else { return nil }
        var out: [(field: String, value: Template)] = []
        for pair in pairs {
            guard case .scalar(let k) = pair.key, f.has(k.value),
                  !out.contains(where: { $0.field == k.value }) else { continue }
            if k.value == "attachments", case .sequence = pair.value {
                // `attachments: [snapshot]`: the identifiers to keep, as a list literal.
                guard let names = strings(pair.value, key: "attachments"),
                      let t = try? compiler.template("{{ [" + names.map { JSONValue.string($0.0).jsonText }.joined(separator: ", ") + "] }}")
                else { continue }
                out.append((k.value, t))
                continue
            }
            guard let t = template(pair.value, key: k.value) else { continue }
            if !t.hasHoles, case .scalar(let s) = pair.value { checkConstant(key: k.value, value: s.value, node: pair.value) }
            out.append((k.value, t))
        }
        if out.isEmpty && pairs.isEmpty { error("'\(key)' needs at least one content field", at: node.mark) }
        return out
    }

    func required(_ f: ConfigFields, _ key: String, in context: String) -> YAMLNode? {
        if let n = f[key] { return n }
        error("'\(context)' needs '\(key)'", at: f.keyMarks[key] ?? f.mark)
        return nil
    }
}
