/// Parses config durations: `250ms`, `30s`, `10m`, `2h`, `1d`, or a bare number of seconds.
///
/// Decimals are allowed (`1.5s`); a sign, an exponent, an unknown unit or an empty number
/// is rejected.
enum DurationParser {
    /// The duration `text` spells, or `nil` when it is not a valid, non-negative duration.
    static func parse(_ text: String) -> Duration? {
        let trimmed = text.trimmingSpaces
        let units: [(suffix: String, nanos: Double)] = [
            ("ms", 1e6), ("s", 1e9), ("m", 60e9), ("h", 3600e9), ("d", 86_400e9),
        ]
        var number = trimmed
        var scale = 1e9
        for unit in units where trimmed.hasSuffix(unit.suffix) {
            number = String(trimmed.dropLast(unit.suffix.count))
            scale = unit.nanos
            break
        }
        guard isDecimal(number), let value = Double(number) else { return nil }
        let nanos = (value * scale).rounded()
        guard nanos.isFinite, nanos < 9.2e18 else { return nil }
        return .nanoseconds(Int64(nanos))
    }

    /// `123`, `1.5`, `.5`, `5.`: digits with at most one dot, at least one digit.
    private static func isDecimal(_ s: String) -> Bool {
        var digits = 0, dots = 0
        for c in s.unicodeScalars {
            if ("0"..."9").contains(c) { digits += 1 } else if c == "." { dots += 1 } else { return false }
        }
        return digits > 0 && dots <= 1
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        let end = scalars.lastIndex(where: { $0 != " " && $0 != "\t" })!
        return String(scalars[start...end])
    }
}
