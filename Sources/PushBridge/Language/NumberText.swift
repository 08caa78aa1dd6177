import Foundation

/// Numbers read from text and written with a fixed number of decimals: the `number` and
/// `fixed(n)` pipes (docs/configuration.md, "Templates and expressions").
///
/// Device payloads carry numbers as text (`"15.00"`, `" 242.10\n"`); which texts hold a
/// number, and which number, is the one numeric coercion's rule (`JSONValue(numberText:)`).
enum NumberText {
    private static let posix = Locale(identifier: "en_US_POSIX")

    /// `number`: numbers pass through; a text holding a number becomes that number
    /// (integers stay exact); anything else is `null`.
    static func number(_ value: JSONValue) -> JSONValue {
        switch value {
        case .int, .double, .bigInt: return value
        case .string(let text): return JSONValue(numberText: text) ?? .null
        default: return .null
        }
    }

    /// `fixed(places)`: the number (or the number a text holds) as text with exactly
    /// `places` decimals, rounded half away from zero; `nil` when the value is no number.
    static func fixed(_ value: JSONValue, places: Int) -> String? {
        let decimalText: String
        switch value {
        case .int(let i): decimalText = String(i)
        case .bigInt(let digits): decimalText = digits
        case .double(let d):
            guard d.isFinite else { return nil }
            decimalText = d.description  // shortest round-trip form: 251.1 stays 251.1
        case .string(let text):
            let trimmed = Substring(text.trimmingCharacters(in: .whitespacesAndNewlines))
            guard JSONValue.isDecimalText(trimmed) else { return nil }
            decimalText = String(trimmed)
        default: return nil
        }
        if let exact = fixedDecimal(decimalText, places: places) { return exact }
        guard let d = Double(decimalText), d.isFinite else { return nil }
        return clean(String(format: "%.\(places)f", d))
    }

    /// Rounds with `Decimal` (38 significant digits) and pads to `places` decimals.
    private static func fixedDecimal(_ text: String, places: Int) -> String? {
        guard var decimal = Decimal(string: text, locale: posix), !decimal.isNaN else { return nil }
        // Beyond Decimal's exact range the text is written by printf instead.
        if decimal.exponent > 0 && text.utf8.count > 38 { return nil }
        var rounded = Decimal()
        NSDecimalRound(&rounded, &decimal, places, .plain)
        var out = NSDecimalNumber(decimal: rounded).description(withLocale: posix)
        if out.contains("e") || out.contains("E") { return nil }
        if places > 0 {
            let fraction = out.firstIndex(of: ".").map { out.distance(from: $0, to: out.endIndex) - 1 }
            if let fraction {
                out += String(repeating: "0", count: max(0, places - fraction))
            } else {
                out += "." + String(repeating: "0", count: places)
            }
        }
        return clean(out)
    }

    /// `-0.00` is written `0.00`.
    private static func clean(_ text: String) -> String {
        if text.hasPrefix("-"), text.dropFirst().allSatisfy({ $0 == "0" || $0 == "." }) {
            return String(text.dropFirst())
        }
        return text
    }
}
