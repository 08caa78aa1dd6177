extension JSONValue {
    /// Indented JSON text (two spaces), object members in the order they were added, a list
    /// of scalars on one line: for files people read and diff, such as the config schema.
    var prettyJSONText: String {
        var out = ""
        writePretty(into: &out, indent: "")
        return out
    }

    private func writePretty(into out: inout String, indent: String) {
        let inner = indent + "  "
        switch self {
        case .array(let items) where items.isEmpty:
            out += "[]"
        case .array(let items) where items.allSatisfy(\.isScalar):
            out += "[" + items.map(\.jsonText).joined(separator: ", ") + "]"
        case .array(let items):
            out += "[\n"
            for (i, item) in items.enumerated() {
                out += inner
                item.writePretty(into: &out, indent: inner)
                out += i == items.count - 1 ? "\n" : ",\n"
            }
            out += indent + "]"
        case .object(let members) where members.isEmpty:
            out += "{}"
        case .object(let members):
            out += "{\n"
            for (i, member) in members.enumerated() {
                out += inner + JSONValue.string(member.key).jsonText + ": "
                member.value.writePretty(into: &out, indent: inner)
                out += i == members.count - 1 ? "\n" : ",\n"
            }
            out += indent + "}"
        default:
            out += jsonText
        }
    }

    /// `true` for anything but an array or object.
    private var isScalar: Bool {
        switch self {
        case .array, .object: return false
        default: return true
        }
    }
}
