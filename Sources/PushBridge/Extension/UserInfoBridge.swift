import Foundation

/// Converts between `JSONValue` and the `[AnyHashable: Any]` world of Apple's `userInfo`.
///
/// Values go out as Swift natives (`String`, `Int`, `Double`, `Bool`, `[Any]`,
/// `[AnyHashable: Any]`, `NSNull`). Coming back, those plus `NSNumber`, `Int64`,
/// other fixed-width integers, `Float`, `[String: Any]` and `Optional.none` are understood;
/// anything else (a `Date`, a custom object) becomes its `description` string, because
/// `userInfo` must stay JSON to cross to the display topic.
enum UserInfoBridge {
    /// The `userInfo` dictionary for `value` when it is an object; `[:]` for any other value.
    static func dictionary(from value: JSONValue) -> [AnyHashable: Any] {
        guard case .object(let members) = value else { return [:] }
        var result: [AnyHashable: Any] = [:]
        for (key, member) in members { result[key] = any(from: member) }
        return result
    }

    /// The JSON object for a `userInfo` dictionary (non-string keys use their description).
    static func json(from dictionary: [AnyHashable: Any]) -> JSONValue {
        var members: JSONObject = [:]
        for (key, member) in dictionary { members[keyText(key)] = json(fromAny: member) }
        return .object(members)
    }

    /// A Swift-native `Any` for one JSON value.
    static func any(from value: JSONValue) -> Any {
        switch value {
        case .null: return NSNull()
        case .bool(let b): return b
        case .int(let i): return Int(exactly: i) ?? Double(i)
        case .double(let d): return d
        case .bigInt(let digits):
            // Foundation's `Decimal` holds 38 digits exactly; a longer integer stays its text.
            if digits.utf8.count <= 38, let decimal = Decimal(string: digits, locale: posix) { return decimal }
            return digits
        case .string(let s): return s
        case .array(let items): return items.map { any(from: $0) }
        case .object: return dictionary(from: value)
        }
    }

    /// The JSON value for one `Any` taken from a `userInfo` dictionary.
    static func json(fromAny value: Any) -> JSONValue {
        // Exact native types first: on Linux an `NSNumber` answers `as? Bool` for 0 and 1.
        switch value {
        case let v as String: return .string(v)
        case let v as Bool where type(of: value) == Bool.self: return .bool(v)
        case let v as Int where type(of: value) == Int.self: return .int(Int64(v))
        case let v as Int64 where type(of: value) == Int64.self: return .int(v)
        case let v as Int32 where type(of: value) == Int32.self: return .int(Int64(v))
        case let v as UInt where type(of: value) == UInt.self: return integer(v)
        case let v as UInt64 where type(of: value) == UInt64.self: return integer(v)
        case let v as Double where type(of: value) == Double.self: return .double(v)
        case let v as Float where type(of: value) == Float.self: return .double(Double(v))
        case let v as Decimal: return decimal(v)
        case let v as NSNumber: return number(v)
        case is NSNull: return .null
        case let v as [AnyHashable: Any]: return json(from: v)
        case let v as [String: Any]: return json(from: Dictionary(uniqueKeysWithValues: v.map { (AnyHashable($0.key), $0.value) }))
        case let v as [Any]: return .array(v.map { json(fromAny: $0) })
        default:
            // `Optional<Any>.none` arrives wrapped in `Any`.
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .optional {
                guard let child = mirror.children.first else { return .null }
                return json(fromAny: child.value)
            }
            return .string(String(describing: value))
        }
    }

    private static let posix = Locale(identifier: "en_US_POSIX")

    private static func integer<T: BinaryInteger>(_ v: T) -> JSONValue {
        if let exact = Int64(exactly: v) { return .int(exact) }
        return .bigInt(String(v))
    }

    /// An integral `Decimal` stays exact (`int` or `bigInt`); any other is a double.
    private static func decimal(_ v: Decimal) -> JSONValue {
        var value = v, rounded = Decimal()
        NSDecimalRound(&rounded, &value, 0, .plain)
        if rounded == v, let canonical = JSONValue.canonicalIntegerText(Substring(v.description)) {
            if let exact = Int64(canonical) { return .int(exact) }
            return .bigInt(canonical)
        }
        return .double(NSDecimalNumber(decimal: v).doubleValue)
    }

    private static func number(_ n: NSNumber) -> JSONValue {
        let type = String(cString: n.objCType)
        switch type {
        case "c", "B": return .bool(n.boolValue)
        case "f", "d": return .double(n.doubleValue)
        case "Q", "L", "I", "S", "C": return integer(n.uint64Value)
        default: return .int(n.int64Value)
        }
    }

    private static func keyText(_ key: AnyHashable) -> String {
        if let s = key.base as? String { return s }
        return String(describing: key.base)
    }
}
