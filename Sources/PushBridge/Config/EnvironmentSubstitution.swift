/// `${NAME}` and `${NAME:-default}` substitution in scalars (docs/configuration.md, "How the file is read").
///
/// Rules: `NAME` is `[A-Za-z_][A-Za-z0-9_]*`. `${NAME:-default}` uses `default` when the
/// variable is unset or empty (as in the shell). `$${` is an escape that yields a literal
/// `${` and is not substituted. Any other `$` is kept as is. The default text is taken
/// literally up to the first `}`.
enum EnvironmentSubstitution {
    /// A problem at a UTF-8 byte offset of the input.
    struct Problem: Sendable, Equatable {
        var offset: Int
        var message: String
    }

    /// Substitutes every reference in `text`; unknown variables without default are problems.
    static func substitute(_ text: String, environment: [String: String]) -> (String, [Problem]) {
        guard text.contains("$") else { return (text, []) }
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        var problems: [Problem] = []
        var i = 0
        let dollar = UInt8(ascii: "$"), open = UInt8(ascii: "{"), close = UInt8(ascii: "}")
        while i < bytes.count {
            let b = bytes[i]
            if b == dollar, i + 2 < bytes.count, bytes[i + 1] == dollar, bytes[i + 2] == open {
                out += [dollar, open]
                i += 3
                continue
            }
            guard b == dollar, i + 1 < bytes.count, bytes[i + 1] == open else {
                out.append(b)
                i += 1
                continue
            }
            guard let end = bytes[(i + 2)...].firstIndex(of: close) else {
                problems.append(Problem(offset: i, message: "unterminated '${' (write '$${' for a literal '${')"))
                out += bytes[i...]
                break
            }
            let inner = String(decoding: bytes[(i + 2)..<end], as: UTF8.self)
            let name: String, fallback: String?
            if let range = inner.range(of: ":-") {
                name = String(inner[..<range.lowerBound])
                fallback = String(inner[range.upperBound...])
            } else {
                name = inner
                fallback = nil
            }
            if !isValidName(name) {
                problems.append(Problem(offset: i, message: "invalid environment variable name '\(name)' in '${\(inner)}'"))
            } else if let value = environment[name], !(value.isEmpty && fallback != nil) {
                out += value.utf8
            } else if let fallback {
                out += fallback.utf8
            } else {
                problems.append(Problem(
                    offset: i,
                    message: "environment variable '\(name)' is not set (use ${\(name):-default} to give a default)"))
            }
            i = end + 1
        }
        return (String(decoding: out, as: UTF8.self), problems)
    }

    /// `[A-Za-z_][A-Za-z0-9_]*`.
    static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first else { return false }
        func letter(_ c: Unicode.Scalar) -> Bool { ("a"..."z").contains(c) || ("A"..."Z").contains(c) || c == "_" }
        return letter(first) && name.unicodeScalars.allSatisfy { letter($0) || ("0"..."9").contains($0) }
    }
}
