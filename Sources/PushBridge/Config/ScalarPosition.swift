/// Maps a UTF-8 byte offset inside a scalar's text to a position in the YAML file.
///
/// Plain scalars on one line: the scalar's column plus the offset. Quoted: one more for
/// the opening quote (escape sequences may shift it; the result is approximate then).
/// Literal and folded block scalars: the content starts on the line after the indicator,
/// so the line is that plus the newlines before the offset, and the column is the block's
/// indentation plus the characters since the last newline.
struct ScalarPosition {
    /// The YAML source split into lines (for the block indentation).
    let lines: [Substring]

    init(source: String) {
        lines = source.split(separator: "\n", omittingEmptySubsequences: false)
    }

    /// The 0-based position of byte `offset` of `scalar.original`.
    func locate(offset: Int, in scalar: YAMLScalar) -> YAMLMark {
        let utf8 = Array(scalar.original.utf8)
        let prefixBytes = utf8[..<min(max(offset, 0), utf8.count)]
        let prefix = String(decoding: prefixBytes, as: UTF8.self)
        switch scalar.style {
        case .plain:
            return YAMLMark(line: scalar.mark.line, column: scalar.mark.column + prefix.unicodeScalars.count)
        case .singleQuoted, .doubleQuoted:
            return YAMLMark(line: scalar.mark.line, column: scalar.mark.column + 1 + prefix.unicodeScalars.count)
        case .literal, .folded:
            let newlines = prefix.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
            let lastLine = prefix.split(separator: "\n", omittingEmptySubsequences: false).last ?? ""
            let firstContentLine = scalar.mark.line + 1
            return YAMLMark(line: firstContentLine + newlines,
                            column: blockIndent(after: scalar.mark.line) + lastLine.unicodeScalars.count)
        }
    }

    /// Leading spaces of the first non-blank line after the block indicator's line.
    private func blockIndent(after line: Int) -> Int {
        var index = line + 1
        while index < lines.count {
            let text = lines[index]
            if !text.allSatisfy({ $0 == " " || $0 == "\r" }) {
                return text.prefix { $0 == " " }.count
            }
            index += 1
        }
        return 0
    }
}
