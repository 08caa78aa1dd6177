/// The keys of one YAML mapping, checked against the keys a section knows.
struct ConfigFields {
    /// Where the mapping starts.
    let mark: YAMLMark
    /// Values by key (first occurrence wins; duplicates were reported by the parser).
    private(set) var values: [String: YAMLNode] = [:]
    /// Where each key is written.
    private(set) var keyMarks: [String: YAMLMark] = [:]

    init(mark: YAMLMark) { self.mark = mark }

    mutating func add(key: String, at keyMark: YAMLMark, value: YAMLNode) {
        guard values[key] == nil else { return }
        values[key] = value
        keyMarks[key] = keyMark
    }

    /// The value of `key` unless it is absent or null.
    subscript(_ key: String) -> YAMLNode? {
        guard let node = values[key], !node.isNull else { return nil }
        return node
    }

    /// `true` when `key` is present with a null value (`key: null`, `key: ~`, `key:`).
    func isExplicitNull(_ key: String) -> Bool { values[key]?.isNull ?? false }

    /// `true` when `key` is written at all.
    func has(_ key: String) -> Bool { values[key] != nil }
}
