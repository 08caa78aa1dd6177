import Foundation

/// Reads `extension:` and its declarative filters (docs/configuration.md, "extension").
extension ConfigReader {
    static let extensionKeys = ConfigReference.keys(in: "extension")
    static let filterKeys = ConfigReference.keys(in: "extension.filters[]")
    /// The keys of a filter that are no action.
    static let filterModifiers = ["name", "when", "routes"]
    static let filterActions = filterKeys.filter { !filterModifiers.contains($0) }

    /// The action keys of a filter, one per entry (`filterActions`, from the key reference,
    /// lists the same names; a test holds them together).
    enum FilterActionKind: String, CaseIterable {
        case suppress, set, dedupe, rateLimit = "rate_limit", changed, quietHours = "quiet_hours"
    }
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
        guard let kind = FilterActionKind(rawValue: actionKey) else {
            error("'\(actionKey)' is a filter key this version cannot read; use one of "
                  + Self.list(FilterActionKind.allCases.map { "'\($0.rawValue)'" }), at: f.keyMarks[actionKey] ?? f.mark)
            return nil
        }
        guard let actionNode = f.values[actionKey], let action = readAction(kind, actionNode) else { return nil }
        var filter = FilterConfig(name: name, action: action)
        if let n = maxKeysNode(actionKey, actionNode), let v = int(n, key: "max_keys", range: 1...10_000_000) {
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

    private func readAction(_ kind: FilterActionKind, _ node: YAMLNode) -> FilterAction? {
        switch kind {
        case .suppress:
            return expression(node, key: "suppress").map(FilterAction.suppress)
        case .set:
            return contentSets(node, key: "set").map(FilterAction.set)
        case .dedupe:
            guard let f = fields(node, key: "dedupe", context: "dedupe", known: ConfigReference.keys(in: "extension.filters[].dedupe")) else { return nil }
            let k = required(f, "key", in: "dedupe").flatMap { template($0, key: "key") }
            let w = required(f, "window", in: "dedupe").flatMap { duration($0, key: "window", minimum: Self.positive) }
            guard let k, let w else { return nil }
            return .dedupe(key: k, window: w)
        case .rateLimit:
            guard let f = fields(node, key: "rate_limit", context: "rate_limit", known: ConfigReference.keys(in: "extension.filters[].rate_limit")) else { return nil }
            let k = required(f, "key", in: "rate_limit").flatMap { template($0, key: "key") }
            let m = required(f, "max", in: "rate_limit").flatMap { int($0, key: "max", range: 1...Int.max) }
            let w = required(f, "window", in: "rate_limit").flatMap { duration($0, key: "window", minimum: Self.positive) }
            guard let k, let m, let w else { return nil }
            return .rateLimit(key: k, max: m, window: w)
        case .changed:
            return readChanged(node)
        case .quietHours:
            return readQuietHours(node)
        }
    }

    private func readChanged(_ node: YAMLNode) -> FilterAction? {
        guard let f = fields(node, key: "changed", context: "changed",
                             known: ConfigReference.keys(in: "extension.filters[].changed")) else { return nil }
        let k = required(f, "key", in: "changed").flatMap { template($0, key: "key") }
        let v = required(f, "value", in: "changed").flatMap { template($0, key: "value") }
        var deadband = 0.0
        var ok = true
        if let n = f["deadband"] {
            if case .scalar(let s) = n, !s.style.isQuoted, let d = JSONValue(numberText: s.value)?.arithmeticValue,
               d.isFinite, d >= 0 {
                deadband = d
            } else {
                error("'deadband' must be a number of at least 0, got \(show(n))", at: n.mark)
                ok = false
            }
        }
        var initial = ChangedInitial.deliver
        if let n = f["initial"] {
            if let w: ChangedInitial = word(n, key: "initial") { initial = w } else { ok = false }
        }
        guard let k, let v, ok else { return nil }
        return .changed(key: k, value: v, deadband: deadband, initial: initial)
    }

    /// The `max_keys` node inside a remembering filter's mapping.
    private func maxKeysNode(_ action: String, _ node: YAMLNode) -> YAMLNode? {
        guard ["dedupe", "rate_limit", "changed"].contains(action), case .mapping(let pairs, _) = node else { return nil }
        for pair in pairs { if case .scalar(let k) = pair.key, k.value == "max_keys" { return pair.value } }
        return nil
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

    private func readQuietHours(_ node: YAMLNode) -> FilterAction? {
        guard let f = fields(node, key: "quiet_hours", context: "quiet_hours",
                             known: ConfigReference.keys(in: "extension.filters[].quiet_hours")) else { return nil }
        let from = required(f, "from", in: "quiet_hours").flatMap { clock($0, key: "from") }
        let to = required(f, "to", in: "quiet_hours").flatMap { clock($0, key: "to") }
        var zone: String?
        var zoneOK = true
        if let n = f["timezone"], let v = string(n, key: "timezone") {
            if TimeZone(identifier: v) == nil {
                error("unknown 'timezone' \(show(n)); use an IANA name such as Europe/Berlin", at: n.mark)
                zoneOK = false
            } else {
                zone = v
            }
        }
        var unless: Expression?
        var unlessOK = true
        if let n = f["unless"] {
            unless = expression(n, key: "unless")
            unlessOK = unless != nil
        }
        guard let from, let to, zoneOK, unlessOK else { return nil }
        return .quietHours(fromMinute: from, toMinute: to, timezone: zone, unless: unless)
    }

    /// `HH:MM` (00:00–23:59) as minutes after midnight.
    private func clock(_ node: YAMLNode, key: String) -> Int? {
        if case .scalar(let s) = node {
            let parts = s.value.split(separator: ":", omittingEmptySubsequences: false)
            if parts.count == 2, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
               let h = Int(parts[0]), let m = Int(parts[1]), (0...23).contains(h), (0...59).contains(m) {
                return h * 60 + m
            }
        }
        error("'\(key)' must be a time \"HH:MM\" (00:00 to 23:59), got \(show(node))", at: node.mark)
        return nil
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
