/// The run-time semantics of the language's operators (docs/configuration.md, "Templates and expressions").
///
/// Nothing here fails: values of different types are never equal nor ordered, and an
/// operator applied to types it does not support yields `null`. Integers and doubles
/// are one type, "number", compared exactly.
enum Operators {
    /// Truthiness: `null`, `false`, `0`, `0.0`, `""`, `[]` and `{}` are false.
    static func isTruthy(_ value: JSONValue) -> Bool {
        switch value {
        case .null: return false
        case .bool(let b): return b
        case .int(let i): return i != 0
        case .double(let d): return d != 0 && !d.isNaN
        case .bigInt: return true  // never zero: it lies beyond Int64
        case .string(let s): return !s.isEmpty
        case .array(let a): return !a.isEmpty
        case .object(let o): return !o.isEmpty
        }
    }

    /// Language equality: deep, numbers compare by value across int/double, strings by
    /// unicode scalars, different types are never equal.
    static func equal(_ left: JSONValue, _ right: JSONValue) -> Bool {
        switch (left, right) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.int, .int), (.int, .double), (.double, .int), (.double, .double),
             (.bigInt, .bigInt), (.bigInt, .int), (.int, .bigInt), (.bigInt, .double), (.double, .bigInt):
            return compare(left, right) == .equal
        case (.string(let a), .string(let b)): return a.utf8.elementsEqual(b.utf8)
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { equal($0, $1) }
        case (.object(let a), .object(let b)):
            guard a.count == b.count else { return false }
            for (key, value) in a {
                guard let other = b[key], equal(value, other) else { return false }
            }
            return true
        default: return false
        }
    }

    enum Order {
        case less, equal, greater

        /// The order seen from the other operand.
        var reversed: Order {
            switch self {
            case .less: .greater
            case .equal: .equal
            case .greater: .less
            }
        }
    }

    /// The order of two numbers or two strings; `nil` for anything else (unordered).
    static func compare(_ left: JSONValue, _ right: JSONValue) -> Order? {
        switch (left, right) {
        case (.int(let a), .int(let b)): return a < b ? .less : a == b ? .equal : .greater
        case (.double(let a), .double(let b)):
            if a.isNaN || b.isNaN { return nil }
            return a < b ? .less : a == b ? .equal : .greater
        case (.int(let a), .double(let b)): return compare(a, b)
        case (.double(let a), .int(let b)):
            switch compare(b, a) {
            case .less?: return .greater
            case .greater?: return .less
            case let order: return order
            }
        case (.bigInt(let a), .bigInt(let b)): return BigIntegerText.compare(a, b)
        case (.bigInt(let a), .int): return a.hasPrefix("-") ? .less : .greater  // beyond Int64 either way
        case (.int, .bigInt(let b)): return b.hasPrefix("-") ? .greater : .less
        case (.bigInt(let a), .double(let b)): return BigIntegerText.compare(a, b)
        case (.double(let a), .bigInt(let b)): return BigIntegerText.compare(b, a).map(\.reversed)
        case (.string(let a), .string(let b)):
            if a.utf8.elementsEqual(b.utf8) { return .equal }
            // UTF-8 byte order is unicode scalar order.
            return a.utf8.lexicographicallyPrecedes(b.utf8) ? .less : .greater
        default: return nil
        }
    }

    /// Exact comparison of an integer with a double (no rounding through Double).
    private static func compare(_ integer: Int64, _ double: Double) -> Order? {
        if double.isNaN { return nil }
        if double >= 9_223_372_036_854_775_808.0 { return .less }  // 2^63
        if double < -9_223_372_036_854_775_808.0 { return .greater }
        let floor = double.rounded(.down)
        let floorInteger = Int64(floor)
        if integer < floorInteger { return .less }
        if integer > floorInteger { return .greater }
        return floor == double ? .equal : .less
    }

    /// `<`, `<=`, `>`, `>=`: false whenever the operands are unordered.
    static func ordered(_ op: BinaryOperator, _ left: JSONValue, _ right: JSONValue) -> Bool {
        guard let order = compare(left, right) else { return false }
        switch op {
        case .less: return order == .less
        case .lessEqual: return order != .greater
        case .greater: return order == .greater
        case .greaterEqual: return order != .less
        default: return false
        }
    }

    /// `needle in haystack`: list element, substring, or object key; otherwise false.
    static func contains(_ needle: JSONValue, in haystack: JSONValue) -> Bool {
        switch (needle, haystack) {
        case (_, .array(let elements)): return elements.contains { equal(needle, $0) }
        case (.string(let part), .string(let whole)):
            return part.isEmpty || whole.utf8.firstRange(of: part.utf8) != nil
        case (.string(let key), .object(let members)): return members[key] != nil
        default: return false
        }
    }

    /// `text =~ pattern` with a pattern known only at run time; a bad pattern is false.
    static func matches(_ text: JSONValue, pattern: JSONValue) -> Bool {
        guard case .string(let string) = text, case .string(let source) = pattern,
              let regex = try? Regex(source) else { return false }
        return string.contains(regex)
    }

    /// `+`: numbers add, strings and lists concatenate; anything else is `null`.
    static func add(_ left: JSONValue, _ right: JSONValue) -> JSONValue {
        switch (left, right) {
        case (.string(let a), .string(let b)): return .string(a + b)
        case (.array(let a), .array(let b)): return .array(a + b)
        default:
            return arithmetic(left, right, { $0.addingReportingOverflow($1) }, +)
        }
    }

    static func subtract(_ left: JSONValue, _ right: JSONValue) -> JSONValue {
        arithmetic(left, right, { $0.subtractingReportingOverflow($1) }, -)
    }

    static func multiply(_ left: JSONValue, _ right: JSONValue) -> JSONValue {
        arithmetic(left, right, { $0.multipliedReportingOverflow(by: $1) }, *)
    }

    /// `/`: an exact integer quotient stays an integer, otherwise a double; `x / 0` is `null`.
    static func divide(_ left: JSONValue, _ right: JSONValue) -> JSONValue {
        if case .int(let a) = left, case .int(let b) = right {
            if b == 0 { return .null }
            let (remainder, remainderOverflow) = a.remainderReportingOverflow(dividingBy: b)
            let (quotient, overflow) = a.dividedReportingOverflow(by: b)
            if !overflow && !remainderOverflow && remainder == 0 { return .int(quotient) }
            return finite(Double(a) / Double(b))
        }
        guard let a = left.arithmeticValue, let b = right.arithmeticValue, b != 0 else { return .null }
        return finite(a / b)
    }

    /// Unary `-`: numbers only.
    static func negate(_ value: JSONValue) -> JSONValue {
        switch value {
        case .int(let i):
            let (result, overflow) = Int64(0).subtractingReportingOverflow(i)
            return overflow ? .bigInt("9223372036854775808") : .int(result)  // -Int64.min, exactly
        case .double(let d): return .double(-d)
        case .bigInt(let digits):
            return .bigInt(digits.hasPrefix("-") ? String(digits.dropFirst()) : "-" + digits)
        default: return .null
        }
    }

    /// Integer arithmetic with overflow falling back to doubles; other numbers as doubles.
    private static func arithmetic(
        _ left: JSONValue, _ right: JSONValue,
        _ integerOp: (Int64, Int64) -> (partialValue: Int64, overflow: Bool),
        _ doubleOp: (Double, Double) -> Double
    ) -> JSONValue {
        if case .int(let a) = left, case .int(let b) = right {
            let (result, overflow) = integerOp(a, b)
            if !overflow { return .int(result) }
        }
        guard let a = left.arithmeticValue, let b = right.arithmeticValue else { return .null }
        return finite(doubleOp(a, b))
    }

    /// A double result, or `null` when it is infinite or NaN (not representable in JSON).
    private static func finite(_ value: Double) -> JSONValue {
        value.isFinite ? .double(value) : .null
    }
}
