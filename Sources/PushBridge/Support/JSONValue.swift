/// A JSON value as pushbridge sees it: payloads, `userInfo`, expression results.
///
/// Integers are kept exact: as `Int64` when they fit, otherwise as their decimal digits
/// (`bigInt`); numbers with a fraction or exponent are `double`. Objects compare
/// unordered; serialization writes their keys sorted so output is deterministic.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    /// An integer beyond `Int64`, as its canonical decimal text (`-` and digits, no
    /// leading zero): `9999999999999999999` renders, compares and serializes exactly.
    case bigInt(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

extension JSONValue {
    /// The value at `key` when this is an object, otherwise `nil`.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The string when this is a string, otherwise `nil`.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// `true` for `.null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}
