/// The reference of every `bridge.yml` key: the one table the reader's key lists, the JSON
/// Schema (`pushbridge schema`), `pushbridge help config` and docs/configuration.md come from.
///
/// A key is named by its path: sections and keys joined with `.`, a list's items written
/// `[]` (`routes[].alert.title`, `extension.filters[].changed.key`). The reader asks
/// `ConfigReference.keys(in:)` which keys a mapping knows, so a key the table lacks is an
/// unknown key, and a key in the table that no code reads fails `ConfigReferenceTests`.
package enum ConfigReference {
    /// Every key, sections before their keys, in the order the file is written.
    static let all: [ConfigKey] = top + broker + routes + routeAttachments + conditionKeys + digestKeys + extensionSection + outputs + scaleOut
        + deliveryOutputs + conditionsSection + attachmentsSection

    /// The key at `path`, or `nil`.
    package static func key(_ path: String) -> ConfigKey? { byPath[path] }

    /// The names a mapping accepts: the last component of each key directly under `path`
    /// (`""` is the file's root mapping; `routes[]` a route).
    package static func keys(in path: String) -> [String] {
        children[path] ?? []
    }

    /// The keys directly under `path`, in table order.
    static func entries(in path: String) -> [ConfigKey] {
        keys(in: path).compactMap { key(path.isEmpty ? $0 : path + "." + $0) }
    }

    private static let byPath: [String: ConfigKey] = Dictionary(all.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })

    private static let children: [String: [String]] = {
        var out: [String: [String]] = [:]
        for key in all { out[key.parent, default: []].append(key.name) }
        return out
    }()
}

/// One key of `bridge.yml`: its path, what its value is, its default and an example.
package struct ConfigKey: Sendable {
    /// `broker.tls.ca_file`, `routes[].qos`.
    package let path: String
    let type: ConfigType
    /// The default as a JSON value; `nil` when the key has none (absent means off or unset).
    let defaultValue: JSONValue?
    /// The default in words when it depends on something (`1883, or 8883 when tls is set`).
    let defaultNote: String?
    /// One or two sentences: what the key does.
    let summary: String
    /// A value that loads (tests load every example).
    let example: JSONValue
    /// The mapping is incomplete without it (it has no default and must not be null).
    let required: Bool

    init(_ path: String, _ type: ConfigType, default defaultValue: JSONValue? = nil, note: String? = nil,
                 required: Bool = false, example: JSONValue, _ summary: String) {
        self.path = path
        self.type = type
        self.defaultValue = defaultValue
        self.defaultNote = note
        self.summary = summary
        self.example = example
        self.required = required
    }

    /// The last component: `ca_file`.
    package var name: String {
        guard let dot = path.lastIndex(of: ".") else { return path }
        return String(path[path.index(after: dot)...])
    }

    /// The mapping this key belongs to (`broker.tls`; `""` for a top-level key). A list's
    /// items are the mapping `<list>[]`.
    var parent: String {
        guard let dot = path.lastIndex(of: ".") else { return "" }
        return String(path[..<dot])
    }

    /// The path of the mapping that holds this key's own keys: the key itself, or
    /// `<key>[]` for a list of mappings.
    var childPath: String { type.isListOfMappings ? path + "[]" : path }
}

/// What a key's value is, as the reader checks it.
indirect enum ConfigType: Sendable {
    /// Any text.
    case string
    /// Text with `{{ expr }}` holes.
    case template
    /// A bare expression (`payload.level == "debug"`).
    case expression
    /// A plain integer within the bounds.
    case integer(min: Int, max: Int?)
    /// A plain number within the bounds.
    case number(min: Double, max: Double?)
    /// `true` or `false`.
    case boolean
    /// `250ms`, `30s`, `10m`, `2h`, `1d`, or a bare number of seconds.
    case duration
    /// A time of day `HH:MM`.
    case clock
    /// One of these words.
    case words([String])
    /// One of these integers.
    case integers([Int])
    /// A list of strings.
    case strings
    /// A mapping of names the user chooses to text values (HTTP headers).
    case stringMap
    /// A mapping whose keys are the table's keys under it.
    case mapping
    /// A list of mappings whose keys are the table's keys under `<path>[]`.
    case listOfMappings
    /// Any of these (the first that fits).
    case either([ConfigType])

    /// `true` for `listOfMappings`.
    var isListOfMappings: Bool {
        if case .listOfMappings = self { return true }
        return false
    }

    /// `true` for `mapping`.
    var isMapping: Bool {
        if case .mapping = self { return true }
        return false
    }

    /// `true` when the value may be (or is) a mapping whose keys the table lists.
    var hasKeys: Bool {
        switch self {
        case .mapping, .listOfMappings: return true
        case .either(let types): return types.contains { $0.hasKeys }
        default: return false
        }
    }

    /// How the reference names the type: `integer (1 to 65535)`, `duration`, `template`.
    package var words: String {
        switch self {
        case .string: return "string"
        case .template: return "template"
        case .expression: return "expression"
        case .integer(let low, let high?): return "integer (\(low) to \(high))"
        case .integer(let low, nil): return "integer (at least \(low))"
        case .number(let low, let high?): return "number (\(Self.show(low)) to \(Self.show(high)))"
        case .number(let low, nil): return "number (at least \(Self.show(low)))"
        case .boolean: return "boolean"
        case .duration: return "duration"
        case .clock: return "time HH:MM"
        case .words(let w): return "one of " + w.joined(separator: ", ")
        case .integers(let n): return "one of " + n.map(String.init).joined(separator: ", ")
        case .strings: return "list of strings"
        case .stringMap: return "mapping of names to strings"
        case .mapping: return "mapping"
        case .listOfMappings: return "list of mappings"
        case .either(let types): return types.map(\.words).joined(separator: ", or ")
        }
    }

    private static func show(_ x: Double) -> String { x == x.rounded() ? String(Int(x)) : String(x) }
}
