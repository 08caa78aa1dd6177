extension JSONValue {
    /// An upper bound of the length of `jsonText` in bytes, found without serializing.
    ///
    /// Every string byte may become a six-byte `\u00XX` escape, an integer takes at most 20
    /// bytes and a double at most 32; the bound is exact for nothing but always at least the
    /// real size, so a value under a limit by this measure is under it for sure.
    var jsonSizeBound: Int {
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
        case .object(let object):
            // The members read in place (no copy of each key and value).
            return object.withMembers { members in
                var total = 2
                for i in members.indices { total += Self.stringSizeBound(members[i].key) + members[i].value.jsonSizeBound + 2 }
                return total
            }
        }
    }

    /// Upper bound of a quoted, escaped JSON string's length.
    static func stringSizeBound(_ s: String) -> Int {
        stringSizeBound(utf8Count: s.utf8.count)
    }

    /// The same for a string of `utf8Count` bytes.
    static func stringSizeBound(utf8Count: Int) -> Int {
        2 + 6 * utf8Count
    }
}
