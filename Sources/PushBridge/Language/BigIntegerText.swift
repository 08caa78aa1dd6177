import Foundation

/// Exact comparisons of integers beyond `Int64` kept as decimal text (`JSONValue.bigInt`).
///
/// The text is canonical (an optional `-`, then digits without a leading zero), so two
/// integers compare by sign, then by length, then digit by digit; no arithmetic is needed.
enum BigIntegerText {
    /// The order of two canonical integer texts.
    static func compare(_ a: String, _ b: String) -> Operators.Order {
        let aNegative = a.hasPrefix("-"), bNegative = b.hasPrefix("-")
        if aNegative != bNegative { return aNegative ? .less : .greater }
        let magnitude = compareMagnitude(aNegative ? Substring(a.dropFirst()) : Substring(a),
                                         bNegative ? Substring(b.dropFirst()) : Substring(b))
        return aNegative ? magnitude.reversed : magnitude
    }

    /// The order of a canonical integer text and a double, exactly (no rounding of the
    /// integer through `Double`); `nil` when the double is NaN.
    static func compare(_ integer: String, _ double: Double) -> Operators.Order? {
        if double.isNaN { return nil }
        if double == .infinity { return .less }
        if double == -.infinity { return .greater }
        let floor = double.rounded(.down)
        // "%.0f" prints an integral double's exact digits.
        let floorText = String(format: "%.0f", floor)
        let order = compare(integer, floorText == "-0" ? "0" : floorText)
        if order == .equal { return floor == double ? .equal : .less }
        return order
    }

    private static func compareMagnitude(_ a: Substring, _ b: Substring) -> Operators.Order {
        if a.utf8.count != b.utf8.count { return a.utf8.count < b.utf8.count ? .less : .greater }
        if a.utf8.elementsEqual(b.utf8) { return .equal }
        return a.utf8.lexicographicallyPrecedes(b.utf8) ? .less : .greater
    }
}
