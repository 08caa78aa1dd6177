import Foundation

/// The pipes `default`, `upper`, `lower`, `round`, `truncate`, `json`, `fixed`, `number`, `trim`,
/// `join` and `length`.
extension Pipe {
    func apply<Context: EvaluationContext>(to value: JSONValue, in context: Context) -> JSONValue {
        switch self {
        case .defaultValue(let fallback):
            switch value {
            case .null, .string(""): return fallback.evaluate(in: context)
            default: return value
            }
        case .upper:
            return .string(ValueText.render(value).uppercased())
        case .lower:
            return .string(ValueText.render(value).lowercased())
        case .round(let places):
            return Pipe.round(value, places: places)
        case .truncate(let limit):
            let text = ValueText.render(value)
            return .string(text.count <= limit ? text : String(text.prefix(limit)))
        case .json:
            return .string(value.jsonText)
        case .fixed(let places):
            return NumberText.fixed(value, places: places).map(JSONValue.string) ?? value
        case .number:
            return NumberText.number(value)
        case .trim:
            return .string(ValueText.render(value).trimmingCharacters(in: .whitespacesAndNewlines))
        case .join(let separator):
            guard case .array(let items) = value else { return value }
            let sep = ValueText.render(separator.evaluate(in: context))
            return .string(items.map(ValueText.render).joined(separator: sep))
        case .length:
            switch value {
            case .array(let items): return .int(Int64(items.count))
            case .object(let o): return .int(Int64(o.count))
            case .string(let s): return .int(Int64(s.count))
            case .null: return .int(0)
            default: return .int(Int64(ValueText.render(value).count))
            }
        }
    }

    /// Rounds a number half away from zero to `places` decimals; other values pass through.
    ///
    /// With `places == 0` the result is an integer when it fits `Int64`. Decimal places are
    /// rounded on the shortest decimal form of the double, so `1.005 | round(2)` is `1.01`.
    static func round(_ value: JSONValue, places: Int) -> JSONValue {
        guard case .double(let number) = value, number.isFinite else { return value }
        if places == 0 {
            let rounded = number.rounded(.toNearestOrAwayFromZero)
            if rounded.magnitude < 9_223_372_036_854_775_808.0 { return .int(Int64(rounded)) }
            return .double(rounded)
        }
        guard var decimal = Decimal(string: number.description, locale: Locale(identifier: "en_US_POSIX")) else {
            return value
        }
        var rounded = Decimal()
        NSDecimalRound(&rounded, &decimal, places, .plain)
        guard let result = Double(rounded.description), result.isFinite else { return value }
        return .double(result)
    }
}
