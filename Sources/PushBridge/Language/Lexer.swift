/// A punctuation or operator token of the expression language.
enum Symbol: String, Sendable {
    case openParen = "(", closeParen = ")", openBracket = "[", closeBracket = "]"
    case comma = ",", dot = ".", pipe = "|"
    case or = "||", and = "&&", not = "!"
    case equal = "==", notEqual = "!=", less = "<", lessEqual = "<=", greater = ">", greaterEqual = ">="
    case match = "=~", plus = "+", minus = "-", star = "*", slash = "/"
    /// `}}`, the end of a template hole.
    case closeHole = "}}"
}

/// What kind of token the lexer found; literal values are decoded by the parser.
enum TokenKind: Equatable, Sendable {
    case end
    /// A number; `isInteger` when it has neither fraction nor exponent.
    case number(isInteger: Bool)
    case string(String)
    /// An identifier: a variable, keyword (`and`, `true`, …), member or pipe name.
    case name(String)
    case symbol(Symbol)
}

/// One token with its UTF-8 byte range in the full source.
struct Token: Sendable {
    var kind: TokenKind
    var start: Int
    var end: Int
}

/// Splits the bytes of an expression (or of one template hole) into tokens.
///
/// Offsets are absolute positions in the full source, so errors inside a template
/// hole point into the whole template.
struct Lexer {
    let bytes: [UInt8]
    private(set) var index: Int

    init(bytes: [UInt8], start: Int) {
        self.bytes = bytes
        self.index = start
    }

    mutating func next() throws(LanguageError) -> Token {
        skipWhitespace()
        let start = index
        guard index < bytes.count else { return Token(kind: .end, start: start, end: start) }
        let byte = bytes[index]
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"):
            return lexNumber()
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            return try lexString(quote: byte)
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"):
            while index < bytes.count, isIdentifierByte(bytes[index]) { index += 1 }
            let name = String(decoding: bytes[start..<index], as: UTF8.self)
            return Token(kind: .name(name), start: start, end: index)
        default:
            return try lexSymbol(byte, start: start)
        }
    }

    private mutating func lexSymbol(_ byte: UInt8, start: Int) throws(LanguageError) -> Token {
        let following: UInt8 = index + 1 < bytes.count ? bytes[index + 1] : 0
        let symbol: Symbol
        switch (byte, following) {
        case (UInt8(ascii: "|"), UInt8(ascii: "|")): symbol = .or
        case (UInt8(ascii: "&"), UInt8(ascii: "&")): symbol = .and
        case (UInt8(ascii: "="), UInt8(ascii: "=")): symbol = .equal
        case (UInt8(ascii: "="), UInt8(ascii: "~")): symbol = .match
        case (UInt8(ascii: "!"), UInt8(ascii: "=")): symbol = .notEqual
        case (UInt8(ascii: "<"), UInt8(ascii: "=")): symbol = .lessEqual
        case (UInt8(ascii: ">"), UInt8(ascii: "=")): symbol = .greaterEqual
        case (UInt8(ascii: "}"), UInt8(ascii: "}")): symbol = .closeHole
        case (UInt8(ascii: "("), _): symbol = .openParen
        case (UInt8(ascii: ")"), _): symbol = .closeParen
        case (UInt8(ascii: "["), _): symbol = .openBracket
        case (UInt8(ascii: "]"), _): symbol = .closeBracket
        case (UInt8(ascii: ","), _): symbol = .comma
        case (UInt8(ascii: "."), _): symbol = .dot
        case (UInt8(ascii: "|"), _): symbol = .pipe
        case (UInt8(ascii: "!"), _): symbol = .not
        case (UInt8(ascii: "<"), _): symbol = .less
        case (UInt8(ascii: ">"), _): symbol = .greater
        case (UInt8(ascii: "+"), _): symbol = .plus
        case (UInt8(ascii: "-"), _): symbol = .minus
        case (UInt8(ascii: "*"), _): symbol = .star
        case (UInt8(ascii: "/"), _): symbol = .slash
        case (UInt8(ascii: "="), _):
            throw LanguageError(message: "unexpected '='; did you mean '=='?", offset: start)
        case (UInt8(ascii: "&"), _):
            throw LanguageError(message: "unexpected '&'; did you mean '&&'?", offset: start)
        default:
            throw LanguageError(message: "unexpected character '\(scalarDescription(at: start))'", offset: start)
        }
        index += symbol.rawValue.utf8.count
        return Token(kind: .symbol(symbol), start: start, end: index)
    }

    private mutating func lexNumber() -> Token {
        let start = index
        var isInteger = true
        skipDigits()
        if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "."), isDigit(bytes[index + 1]) {
            isInteger = false
            index += 1
            skipDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            var probe = index + 1
            if probe < bytes.count, bytes[probe] == UInt8(ascii: "+") || bytes[probe] == UInt8(ascii: "-") { probe += 1 }
            if probe < bytes.count, isDigit(bytes[probe]) {
                isInteger = false
                index = probe
                skipDigits()
            }
        }
        return Token(kind: .number(isInteger: isInteger), start: start, end: index)
    }

    private mutating func lexString(quote: UInt8) throws(LanguageError) -> Token {
        let start = index
        index += 1
        var text: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            if byte == quote {
                index += 1
                return Token(kind: .string(String(decoding: text, as: UTF8.self)), start: start, end: index)
            }
            if byte == UInt8(ascii: "\\") {
                try lexEscape(into: &text)
            } else {
                text.append(byte)
                index += 1
            }
        }
        throw LanguageError(message: "unterminated string", offset: start)
    }

    private mutating func lexEscape(into text: inout [UInt8]) throws(LanguageError) {
        let escapeStart = index
        index += 1
        guard index < bytes.count else { throw LanguageError(message: "unterminated string", offset: escapeStart) }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(byte)
        case UInt8(ascii: "n"): text.append(0x0A)
        case UInt8(ascii: "t"): text.append(0x09)
        case UInt8(ascii: "r"): text.append(0x0D)
        case UInt8(ascii: "u"):
            var scalar = try lexUnicodeEscape(escapeStart)
            if (0xD800...0xDBFF).contains(scalar), index + 1 < bytes.count,
               bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                let lowStart = index
                index += 2
                let low = try lexUnicodeEscape(lowStart)
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw LanguageError(message: "invalid unicode escape: unpaired surrogate", offset: escapeStart)
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let unicodeScalar = Unicode.Scalar(scalar) else {
                throw LanguageError(message: "invalid unicode escape: not a unicode scalar", offset: escapeStart)
            }
            appendUTF8(unicodeScalar, to: &text)
        default:
            throw LanguageError(message: "unknown escape '\\\(scalarDescription(at: index - 1))'", offset: escapeStart)
        }
    }

    /// Reads the part after `\u`: `XXXX` or `{X…}` (1 to 8 hex digits).
    private mutating func lexUnicodeEscape(_ escapeStart: Int) throws(LanguageError) -> UInt32 {
        var value: UInt32 = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "{") {
            index += 1
            var digits = 0
            while index < bytes.count, let digit = hexValue(bytes[index]) {
                digits += 1
                if digits > 8 { break }
                value = value << 4 | digit
                index += 1
            }
            guard digits >= 1, digits <= 8, index < bytes.count, bytes[index] == UInt8(ascii: "}") else {
                throw LanguageError(message: "invalid unicode escape: expected '\\u{' hex digits '}'", offset: escapeStart)
            }
            index += 1
            return value
        }
        for _ in 0..<4 {
            guard index < bytes.count, let digit = hexValue(bytes[index]) else {
                throw LanguageError(message: "invalid unicode escape: expected 4 hex digits", offset: escapeStart)
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func skipDigits() {
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private func isIdentifierByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"): return true
        default: return false
        }
    }

    /// The whole character (unicode scalar) starting at `position`, for messages.
    private func scalarDescription(at position: Int) -> String {
        var end = position + 1
        while end < bytes.count, end - position < 4, bytes[end] & 0xC0 == 0x80 { end += 1 }
        return String(decoding: bytes[position..<end], as: UTF8.self)
    }
}
