/// A piece of a parsed template.
enum TemplateSegment: Sendable {
    case text(String)
    case hole(Node)
}

/// Splits template source into literal text and parsed `{{ expr }}` holes.
///
/// Text outside holes is copied verbatim (a stray `}}` is text). Inside a hole the
/// expression lexer runs on the template's own bytes, so error offsets are positions
/// in the whole template.
enum TemplateParser {
    static func segments(of source: String) throws(LanguageError) -> [TemplateSegment] {
        let bytes = Array(source.utf8)
        var segments: [TemplateSegment] = []
        var textStart = 0
        var index = 0
        while index + 1 < bytes.count {
            guard bytes[index] == UInt8(ascii: "{"), bytes[index + 1] == UInt8(ascii: "{") else {
                index += 1
                continue
            }
            if textStart < index {
                segments.append(.text(String(decoding: bytes[textStart..<index], as: UTF8.self)))
            }
            let holeStart = index
            guard hasClose(bytes, from: holeStart + 2) else {
                throw LanguageError(message: "expected '}}' to close '{{'", offset: holeStart)
            }
            var parser = try Parser(bytes: bytes, start: holeStart + 2, holeStart: holeStart)
            if parser.token.kind == .symbol(.closeHole) {
                throw LanguageError(message: "empty '{{ }}': expected an expression", offset: holeStart)
            }
            let hole = try parser.parseHole()
            segments.append(.hole(hole.node))
            index = hole.end
            textStart = index
        }
        if textStart < bytes.count {
            segments.append(.text(String(decoding: bytes[textStart...], as: UTF8.self)))
        }
        return segments
    }

    /// `true` when `}}` occurs at or after `start`.
    private static func hasClose(_ bytes: [UInt8], from start: Int) -> Bool {
        var index = start
        while index + 1 < bytes.count {
            if bytes[index] == UInt8(ascii: "}") && bytes[index + 1] == UInt8(ascii: "}") { return true }
            index += 1
        }
        return false
    }
}
