import Foundation

/// The one numeric coercion: what counts as a number when a text (a payload field, a config
/// scalar, an extension's answer, a recorded `changed` value) or a JSON value (an expression
/// result, a stats snapshot) is read as one. Every reader of numbers goes through here.
///
/// A text holds a number when, white space around it ignored, it is a plain decimal: an
/// optional sign, digits with an optional fraction (`5`, `5.`, `.5`), an optional exponent
/// (`1e3`, `2.5E-3`). Hex (`0x10`), `inf`, `nan`, grouping (`1,000`), inner white space
/// and the empty text are no numbers. An integer text is exact: within `Int64` an `int`,
/// beyond it a `bigInt` (canonical digits, any length); any other decimal is the nearest
/// `double`, and one that does not fit a finite double (`1e400`) is no number.
extension JSONValue {
    /// The number `text` holds under the rules above (`" 242.10\n"` is `242.1`, `"+7"` is
    /// `7`, `"1e3"` is `1000.0`), or `nil`.
    package init?(numberText text: some StringProtocol) {
        let trimmed = Substring(String(text).trimmingCharacters(in: .whitespacesAndNewlines))
        guard Self.isDecimalText(trimmed) else { return nil }
        if let canonical = Self.canonicalIntegerText(trimmed) {
            if let exact = Int64(canonical) { self = .int(exact) } else { self = .bigInt(canonical) }
            return
        }
        guard let double = Double(trimmed), double.isFinite else { return nil }
        self = .double(double)
    }

    /// The integer this value is exactly: an `int`, or a `double` with no fraction that
    /// fits in 64 bits (`3.0`); `nil` for anything else.
    package var exactInteger: Int64? {
        switch self {
        case .int(let n): n
        case .double(let d): Int64(exactly: d)
        default: nil
        }
    }

    /// The number as a `Double` when this is a finite `int` or `double`, else `nil`.
    package var numberValue: Double? {
        switch self {
        case .int(let n): Double(n)
        case .double(let d) where d.isFinite: d
        default: nil
        }
    }

    /// Any number as the nearest `Double`, a `bigInt` included (arithmetic, deadbands,
    /// config numbers); `nil` for anything that is no number.
    var arithmeticValue: Double? {
        switch self {
        case .int(let n): Double(n)
        case .double(let d): d
        case .bigInt(let digits): Double(digits)
        default: nil
        }
    }

    /// Whether `text` is exactly `[+-]?(digits[.digits*] | .digits)([eE][+-]?digits)?`
    /// (no white space).
    static func isDecimalText(_ text: Substring) -> Bool {
        var bytes = text.utf8[...]
        if let first = bytes.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        func digits() -> Int {
            var count = 0
            while let b = bytes.first, b >= 0x30, b <= 0x39 { bytes = bytes.dropFirst(); count += 1 }
            return count
        }
        var mantissa = digits()
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            mantissa += digits()
        }
        guard mantissa > 0 else { return false }
        if let e = bytes.first, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if let s = bytes.first, s == UInt8(ascii: "+") || s == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return bytes.isEmpty
    }

    /// The canonical text of an integer written in `text` (an optional `-`, then digits
    /// without a leading zero; `-0` is `0`), or `nil` when `text` is not an integer
    /// (optional sign, digits, nothing else).
    static func canonicalIntegerText(_ text: Substring) -> String? {
        var digits = text
        var negative = false
        if let sign = digits.first, sign == "-" || sign == "+" {
            negative = sign == "-"
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        let trimmed = digits.drop(while: { $0 == "0" })
        if trimmed.isEmpty { return "0" }
        return (negative ? "-" : "") + trimmed
    }
}
