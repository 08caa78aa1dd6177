extension JSONValue {
    /// An upper bound of the length of `jsonText` in bytes, found without serializing.
    ///
    /// Every string byte may become a six-byte `\u00XX` escape, an integer takes at most 20
    /// bytes and a double at most 32; the bound is exact for nothing but always at least the
    /// real size, so a value under a limit by this measure is under it for sure.
    public var jsonSizeBound: Int {
        switch self {
        case .null: return 4
        case .bool: return 5
        case .int: return 20
        case .double: return 32
        case .bigInt(let digits): return digits.utf8.count
        case .string(let s): return Self.stringSizeBound(s)
        case .array(let elements):
            var total = 2
            for element in elements { total += element.jsonSizeBound + 1 }
            return total
        case .object(let members):
            var total = 2
            for (key, value) in members { total += Self.stringSizeBound(key) + value.jsonSizeBound + 2 }
            return total
        }
    }

    /// Upper bound of a quoted, escaped JSON string's length.
    static func stringSizeBound(_ s: String) -> Int {
        2 + 6 * s.utf8.count
    }
}
