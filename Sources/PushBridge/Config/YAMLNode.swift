/// A position in the YAML source, 0-based as libyaml reports it.
struct YAMLMark: Sendable, Equatable {
    /// 0-based line.
    var line: Int
    /// 0-based column, in characters.
    var column: Int
}

/// How a scalar was written; typing depends on it (a quoted `"5"` is a string).
enum YAMLScalarStyle: Sendable, Equatable {
    case plain, singleQuoted, doubleQuoted, literal, folded

    /// `true` for `'…'` and `"…"`.
    var isQuoted: Bool { self == .singleQuoted || self == .doubleQuoted }
}

/// A scalar with its style and position.
struct YAMLScalar: Sendable, Equatable {
    /// The scalar's text (after `${…}` substitution once the loader has run it).
    var value: String
    var style: YAMLScalarStyle
    var mark: YAMLMark
    /// The text as libyaml delivered it, before substitution (for position mapping).
    var original: String
    /// `true` when an explicit `!!str` tag forces a string.
    var forcedString = false

    init(value: String, style: YAMLScalarStyle, mark: YAMLMark, forcedString: Bool = false) {
        self.value = value
        self.style = style
        self.mark = mark
        self.original = value
        self.forcedString = forcedString
    }

    /// A plain (or substituted plain) scalar that spells YAML null: `null`, `~` or nothing.
    var isNull: Bool {
        style == .plain && !forcedString && ["", "~", "null", "Null", "NULL"].contains(value)
    }
}

/// A node of the YAML tree: scalar, mapping (ordered pairs) or sequence.
indirect enum YAMLNode: Sendable, Equatable {
    case scalar(YAMLScalar)
    case mapping([YAMLPair], mark: YAMLMark)
    case sequence([YAMLNode], mark: YAMLMark)

    /// Where the node starts.
    var mark: YAMLMark {
        switch self {
        case .scalar(let s): s.mark
        case .mapping(_, let m), .sequence(_, let m): m
        }
    }

    /// `true` for a null scalar.
    var isNull: Bool {
        if case .scalar(let s) = self { return s.isNull }
        return false
    }

    /// Rewrites every scalar (keys excluded) with `transform`.
    func mapScalars(_ transform: (YAMLScalar) -> YAMLScalar) -> YAMLNode {
        switch self {
        case .scalar(let s): .scalar(transform(s))
        case .mapping(let pairs, let m):
            .mapping(pairs.map { YAMLPair(key: $0.key, value: $0.value.mapScalars(transform)) }, mark: m)
        case .sequence(let items, let m): .sequence(items.map { $0.mapScalars(transform) }, mark: m)
        }
    }
}

/// One key/value pair of a mapping.
struct YAMLPair: Sendable, Equatable {
    var key: YAMLNode
    var value: YAMLNode
}

/// A YAML syntax problem, positioned (0-based mark).
struct YAMLSyntaxError: Error, Sendable, Equatable {
    var message: String
    var mark: YAMLMark?
}
