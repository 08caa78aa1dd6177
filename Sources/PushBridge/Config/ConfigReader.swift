/// Reads typed values out of YAML nodes and collects every problem with its position.
///
/// Every accessor reports its own error and returns `nil`, so sections keep going after a
/// mistake and a single run reports all of them.
final class ConfigReader {
    let path: String
    let compiler: LanguageCompiler
    let positions: ScalarPosition
    private(set) var errors: [ConfigError] = []
    /// Remarks that do not stop the load (`check` prints them).
    private(set) var warnings: [ConfigWarning] = []

    init(path: String, source: String, compiler: LanguageCompiler) {
        self.path = path
        self.compiler = compiler
        self.positions = ScalarPosition(source: source)
    }

    // MARK: Reporting

    /// Records `message` at the 0-based `mark`.
    func error(_ message: String, at mark: YAMLMark) {
        errors.append(ConfigError(path: path, line: mark.line + 1, column: mark.column + 1, message: message))
    }

    /// Records the warning `message` at the 0-based `mark`.
    func warn(_ message: String, at mark: YAMLMark) {
        warnings.append(ConfigWarning(path: path, line: mark.line + 1, column: mark.column + 1, message: message))
    }

    /// Records `message` at byte `offset` inside `scalar`.
    func error(_ message: String, in scalar: YAMLScalar, offset: Int) {
        error(message, at: positions.locate(offset: offset, in: scalar))
    }

    /// `1883`, `true`, `null`, `"two"`, `a mapping`, `a list`: how a value is quoted in messages.
    func show(_ node: YAMLNode) -> String {
        switch node {
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .scalar(let s):
            if s.isNull { return "null" }
            if s.style == .plain, !s.forcedString, JSONValue(numberText: s.value) != nil
                || ["true", "false"].contains(s.value) {
                return s.value
            }
            return "\"\(s.value)\""
        }
    }

    /// `0, 1 or 2`.
    static func list(_ items: [String]) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " or " + items.last!
    }

    // MARK: Structure

    /// The mapping's keys, each checked against `known` (`context` names it in messages).
    func fields(_ node: YAMLNode, key: String, context: String, known: [String]) -> ConfigFields? {
        guard case .mapping(let pairs, let mark) = node else {
            error("'\(key)' must be a mapping, got \(show(node))", at: node.mark)
            return nil
        }
        var fields = ConfigFields(mark: mark)
        for pair in pairs {
            guard case .scalar(let k) = pair.key else {
                error("keys in \(context) must be plain names, got \(show(pair.key))", at: pair.key.mark)
                continue
            }
            if k.style == .plain && k.value == "<<" { continue }
            if !known.contains(k.value) {
                error("unknown key '\(k.value)' in \(context)" + KeySuggestion.hint(for: k.value, in: known), at: k.mark)
                continue
            }
            fields.add(key: k.value, at: k.mark, value: pair.value)
        }
        return fields
    }

    /// The items of a list (`key` names it in messages).
    func sequence(_ node: YAMLNode, key: String) -> [YAMLNode]? {
        guard case .sequence(let items, _) = node else {
            error("'\(key)' must be a list, got \(show(node))", at: node.mark)
            return nil
        }
        return items
    }

    // MARK: Scalars

    /// The scalar, or an error when `node` is a mapping or list.
    func scalar(_ node: YAMLNode, key: String, expected: String = "a string") -> YAMLScalar? {
        guard case .scalar(let s) = node else {
            error("'\(key)' must be \(expected), got \(show(node))", at: node.mark)
            return nil
        }
        return s
    }

    /// Any scalar's text.
    func string(_ node: YAMLNode, key: String) -> String? {
        scalar(node, key: key)?.value
    }

    /// A plain decimal integer, optionally within `range`.
    func int(_ node: YAMLNode, key: String, range: ClosedRange<Int>? = nil) -> Int? {
        guard let s = scalar(node, key: key, expected: "an integer") else { return nil }
        guard s.style == .plain, !s.forcedString, let value = Self.integer(s.value) else {
            error("'\(key)' must be an integer, got \(show(node))", at: s.mark)
            return nil
        }
        if let range, !range.contains(value) {
            let bound = range.upperBound == Int.max ? "at least \(range.lowerBound)"
                : "between \(range.lowerBound) and \(range.upperBound)"
            error("'\(key)' must be \(bound), got \(value)", at: s.mark)
            return nil
        }
        return value
    }

    /// An integer from a fixed set (`qos`, `priority`).
    func choice(_ node: YAMLNode, key: String, allowed: [Int]) -> Int? {
        if case .scalar(let s) = node, s.style == .plain, !s.forcedString,
           let value = Self.integer(s.value), allowed.contains(value) {
            return value
        }
        error("'\(key)' must be \(Self.list(allowed.map(String.init))), got \(show(node))", at: node.mark)
        return nil
    }

    /// One of the quoted `allowed` words.
    func word(_ node: YAMLNode, key: String, allowed: [String]) -> String? {
        if case .scalar(let s) = node, allowed.contains(s.value) { return s.value }
        let options = Self.list(allowed.map { "\"\($0)\"" })
        var message = "'\(key)' must be \(allowed.count == 1 ? options : "one of " + options), got \(show(node))"
        if case .scalar(let s) = node, let near = KeySuggestion.nearest(to: s.value, in: allowed) {
            message += "; did you mean \"\(near)\"?"
        }
        error(message, at: node.mark)
        return nil
    }

    /// `word` for an enum whose raw values, in case order, are the words allowed.
    func word<E: RawRepresentable & CaseIterable>(_ node: YAMLNode, key: String) -> E? where E.RawValue == String {
        word(node, key: key, allowed: E.allCases.map(\.rawValue)).flatMap(E.init(rawValue:))
    }

    /// `true` or `false`, plain; YAML 1.1 spellings (`yes`, `on`, …) get a hint.
    func bool(_ node: YAMLNode, key: String) -> Bool? {
        if case .scalar(let s) = node, s.style == .plain, !s.forcedString {
            switch s.value {
            case "true", "True", "TRUE": return true
            case "false", "False", "FALSE": return false
            case "yes", "Yes", "YES", "on", "On", "ON", "y", "Y":
                error("'\(key)' must be true or false, got \(s.value) (YAML 1.1 booleans are not accepted; write true)", at: s.mark)
                return nil
            case "no", "No", "NO", "off", "Off", "OFF", "n", "N":
                error("'\(key)' must be true or false, got \(s.value) (YAML 1.1 booleans are not accepted; write false)", at: s.mark)
                return nil
            default: break
            }
        }
        error("'\(key)' must be true or false, got \(show(node))", at: node.mark)
        return nil
    }

    /// Smallest duration that counts as "greater than 0".
    static let positive = Duration.nanoseconds(1)

    /// A duration (`250ms`, `30s`, `10m`, `2h`, `1d`, bare seconds) within the bounds.
    func duration(_ node: YAMLNode, key: String, minimum: Duration? = nil, maximum: Duration? = nil) -> Duration? {
        guard let s = scalar(node, key: key, expected: "a duration") else { return nil }
        guard let value = DurationParser.parse(s.value) else {
            error("'\(key)' must be a duration such as 250ms, 30s, 10m, 2h, 1d or a number of seconds, got \(show(node))", at: s.mark)
            return nil
        }
        let low = minimum.map(\.text), high = maximum.map(\.text)
        var bound: String?
        switch (minimum, maximum) {
        case (let lo?, let hi?) where value < lo || value > hi: bound = "between \(low!) and \(high!)"
        case (let lo?, nil) where value < lo: bound = lo == Self.positive ? "greater than 0" : "at least \(low!)"
        case (nil, let hi?) where value > hi: bound = "at most \(high!)"
        default: bound = nil
        }
        if let bound {
            error("'\(key)' must be \(bound), got \(s.value)", at: s.mark)
            return nil
        }
        return value
    }

    /// A template compiled with the Language parser; syntax errors are positioned in the file.
    func template(_ node: YAMLNode, key: String) -> Template? {
        guard let s = scalar(node, key: key, expected: "a template string") else { return nil }
        do throws(LanguageError) {
            return try compiler.template(s.value)
        } catch {
            self.error("invalid template in '\(key)': \(error.message)", in: s, offset: error.offset)
            return nil
        }
    }

    /// An expression compiled with the Language parser; syntax errors are positioned in the file.
    func expression(_ node: YAMLNode, key: String) -> Expression? {
        guard let s = scalar(node, key: key, expected: "an expression string") else { return nil }
        do throws(LanguageError) {
            return try compiler.expression(s.value)
        } catch {
            self.error("invalid expression in '\(key)': \(error.message)", in: s, offset: error.offset)
            return nil
        }
    }

    /// A list of strings (each item a scalar), with the items' nodes.
    func strings(_ node: YAMLNode, key: String) -> [(String, YAMLScalar)]? {
        guard let items = sequence(node, key: key) else { return nil }
        var out: [(String, YAMLScalar)] = []
        var ok = true
        for item in items {
            guard case .scalar(let s) = item, !s.isNull else {
                error("items of '\(key)' must be strings, got \(show(item))", at: item.mark)
                ok = false
                continue
            }
            out.append((s.value, s))
        }
        return ok ? out : nil
    }

    /// A plain YAML integer: optional sign and decimal digits.
    static func integer(_ text: String) -> Int? {
        guard case .int(let n)? = JSONValue(numberText: text) else { return nil }
        return Int(exactly: n)
    }
}
