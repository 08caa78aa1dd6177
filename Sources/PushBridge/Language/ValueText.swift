/// How a value is written into template text.
///
/// `null` is empty, strings as they are, integers with all their digits, integral
/// doubles without a fraction (`42.0` → `42`), other doubles in shortest form
/// (`0.1`), booleans as `true`/`false`, arrays and objects as compact JSON.
enum ValueText {
    static func render(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): return text
        default:
            var text = ""
            append(value, to: &text)
            return text
        }
    }

    static func append(_ value: JSONValue, to text: inout String) {
        switch value {
        case .null: return
        case .bool(let b): text += b ? "true" : "false"
        case .int(let i): text += String(i)
        case .double(let d): if d.isFinite { text += JSONValue.numberText(d) }
        case .bigInt(let digits): text += digits
        case .string(let s): text += s
        case .array, .object: text += value.jsonText
        }
    }
}
