import Foundation

// The filter actions of `extension.filters`: what each one is, how it is read from the config and
// how `pushbridge check` shows it. A new action is a case here, its keys in the key reference
// (ConfigReferenceExtension.swift) and what it does in Extension/FilterChain.swift.

/// The one action of a filter.
enum FilterAction: Sendable {
    /// Hand back empty content when the expression is true.
    case suppress(Expression)
    /// Rewrite content fields: field name (`title`, `subtitle`, `body`, `sound`,
    /// `sound_critical`, `sound_volume`,
    /// `badge`, `thread_id`, `category`, `interruption_level`, `relevance_score`,
    /// `target_content_id`, `filter_criteria`, `user_info`) → template.
    case set([(field: String, value: Template)])
    /// Suppress a repeat of `key` within `window`.
    case dedupe(key: Template, window: Duration)
    /// Let at most `max` per `key` through within `window`.
    case rateLimit(key: Template, max: Int, window: Duration)
    /// Report by exception: suppress when `value` equals the last value recorded for
    /// `key` (numbers: within `deadband`); `initial` decides for a key with no value yet.
    case changed(key: Template, value: Template, deadband: Double, initial: ChangedInitial)
    /// Suppress between `from` and `to` (minutes after midnight) in `timezone`,
    /// unless `unless` is true.
    case quietHours(fromMinute: Int, toMinute: Int, timezone: String?, unless: Expression?)
}

extension FilterAction {
    /// An action's key in a filter (one per filter). The key reference lists the same names
    /// (`ConfigReader.filterActions`; a test holds them together).
    enum Kind: String, CaseIterable {
        case suppress, set, dedupe, rateLimit = "rate_limit", changed, quietHours = "quiet_hours"

        /// The actions that remember keys, and so take `max_keys`.
        var remembers: Bool {
            switch self {
            case .dedupe, .rateLimit, .changed: return true
            case .suppress, .set, .quietHours: return false
            }
        }
    }

    /// This action's key.
    var kind: Kind {
        switch self {
        case .suppress: return .suppress
        case .set: return .set
        case .dedupe: return .dedupe
        case .rateLimit: return .rateLimit
        case .changed: return .changed
        case .quietHours: return .quietHours
        }
    }

    /// The action as `pushbridge check` lists it.
    var summary: String {
        switch self {
        case .suppress(let e):
            return "suppress \"\(e.source)\""
        case .set(let fields):
            return "set " + fields.map { "\($0.field)=\"\($0.value.source)\"" }.joined(separator: " ")
        case .dedupe(let key, let window):
            return "dedupe key=\"\(key.source)\" window=\(window.text)"
        case .rateLimit(let key, let max, let window):
            return "rate_limit key=\"\(key.source)\" max=\(max) window=\(window.text)"
        case .changed(let key, let value, let deadband, let initial):
            var text = "changed key=\"\(key.source)\" value=\"\(value.source)\""
            if deadband != 0 { text += " deadband=\(JSONValue.numberText(deadband))" }
            return text + " initial=\(initial.rawValue)"
        case .quietHours(let from, let to, let zone, let unless):
            func hm(_ m: Int) -> String {
                let h = m / 60, mm = m % 60
                return (h < 10 ? "0" : "") + "\(h):" + (mm < 10 ? "0" : "") + "\(mm)"
            }
            var text = "quiet_hours \(hm(from))-\(hm(to)) timezone=\(zone ?? "local")"
            if let unless { text += " unless \"\(unless.source)\"" }
            return text
        }
    }
}

/// What `changed` does with a key it has no value for.
enum ChangedInitial: String, Sendable, CaseIterable {
    case deliver, suppress
}

/// Reading each action from its key's node.
extension ConfigReader {
    /// The action of one filter, read from its action key's node.
    func readAction(_ kind: FilterAction.Kind, _ node: YAMLNode) -> FilterAction? {
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
    func maxKeysNode(_ node: YAMLNode) -> YAMLNode? {
        guard case .mapping(let pairs, _) = node else { return nil }
        for pair in pairs { if case .scalar(let k) = pair.key, k.value == "max_keys" { return pair.value } }
        return nil
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
}
