/// A JSON syntax error with the UTF-8 byte offset where the problem is.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, e.g. `expected ',' or ']' in array`.
    public var message: String
    /// UTF-8 byte offset into the input where the problem was found.
    public var offset: Int

    public init(message: String, offset: Int) {
        self.message = message
        self.offset = offset
    }

    public var description: String { "\(message) at byte \(offset)" }
}

extension JSONValue {
    /// The deepest nesting of arrays and objects `parse` accepts.
    public static let maximumParseDepth = 512

    /// Parses one JSON text (RFC 8259, strict) from UTF-8 bytes.
    ///
    /// Integers that fit are `.int`, other numbers `.double`; a repeated object key keeps
    /// its last value; a lone surrogate escape becomes U+FFFD. Nesting deeper than
    /// `maximumParseDepth` is an error, never a crash.
    public static func parse(_ bytes: some Collection<UInt8>) throws(JSONParseError) -> JSONValue {
        let result: Result<JSONValue, JSONParseError>? = bytes.withContiguousStorageIfAvailable { buffer in
            parseResult(buffer)
        }
        if let result { return try result.get() }
        let copy = Array(bytes)
        return try copy.withUnsafeBufferPointer { parseResult($0) }.get()
    }

    /// Parses one JSON text (RFC 8259, strict) from a string.
    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        var text = text
        return try text.withUTF8 { parseResult($0) }.get()
    }

    private static func parseResult(_ buffer: UnsafeBufferPointer<UInt8>) -> Result<JSONValue, JSONParseError> {
        var parser = JSONByteParser(buffer)
        do throws(JSONParseError) {
            return .success(try parser.parseDocument())
        } catch {
            return .failure(error)
        }
    }
}

/// The hand-written recursive-descent parser behind `JSONValue.parse`.
///
/// Works directly on the input bytes; strings without escapes are decoded straight
/// from the buffer without an intermediate copy.
struct JSONByteParser {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        if index < bytes.count { throw fail("unexpected \(describe(index)) after the value") }
        return value
    }

    // MARK: Values

    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw fail("expected a value, found the end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try parseWord("true", .bool(true))
        case UInt8(ascii: "f"): return try parseWord("false", .bool(false))
        case UInt8(ascii: "n"): return try parseWord("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw fail("expected a value, found \(describe(index))")
        }
    }

    private mutating func parseWord(_ word: StaticString, _ value: JSONValue) throws(JSONParseError) -> JSONValue {
        let start = index
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw fail("expected a value, found \(describe(start))", at: start) }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
            throw fail("expected a value, found \(describe(start))", at: start)
        }
        index += count
        return value
    }

    private mutating func enterContainer() throws(JSONParseError) {
        depth += 1
        if depth > JSONValue.maximumParseDepth {
            throw fail("nesting too deep (limit \(JSONValue.maximumParseDepth))")
        }
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        index += 1  // '['
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw fail("expected ',' or ']' in array, found the end of input") }
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: ",") { continue }
            if byte == UInt8(ascii: "]") { break }
            throw fail("expected ',' or ']' in array, found \(describe(index - 1))", at: index - 1)
        }
        depth -= 1
        return .array(elements)
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        index += 1  // '{'
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw fail("expected a string key in object, found \(describe(index))")
            }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw fail("expected ':' after object key, found \(describe(index))")
            }
            index += 1
            skipWhitespace()
            members[key] = try parseValue()
            skipWhitespace()
            guard index < bytes.count else { throw fail("expected ',' or '}' in object, found the end of input") }
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: ",") { continue }
            if byte == UInt8(ascii: "}") { break }
            throw fail("expected ',' or '}' in object, found \(describe(index - 1))", at: index - 1)
        }
        depth -= 1
        return .object(members)
    }

    // MARK: Numbers

    private mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        var negative = false
        if bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid number: expected a digit", at: index) }
        var integer: Int64 = 0
        var exact = true
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw fail("invalid number: leading zero", at: start) }
        } else {
            while index < bytes.count, isDigit(bytes[index]) {
                let digit = Int64(bytes[index] &- UInt8(ascii: "0"))
                if exact {
                    // Accumulate negatively so Int64.min is exact.
                    let (times10, o1) = integer.multipliedReportingOverflow(by: 10)
                    let (next, o2) = times10.subtractingReportingOverflow(digit)
                    if o1 || o2 { exact = false } else { integer = next }
                }
                index += 1
            }
        }
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid number: expected a digit after '.'", at: index) }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid number: expected a digit in the exponent", at: index) }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if isInteger && exact {
            if negative { return .int(integer) }
            if integer != .min { return .int(-integer) }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let double = Double(text), double.isFinite else { throw fail("number out of range", at: start) }
        return .double(double)
    }

    // MARK: Strings

    /// Parses a string starting at its opening quote.
    private mutating func parseString() throws(JSONParseError) -> String {
        index += 1  // opening quote
        let start = index
        // Fast path: no escapes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            try validateByte(byte)
        }
        guard index < bytes.count else { throw fail("unterminated string", at: start - 1) }
        var scratch = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: scratch, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") {
                try parseEscape(into: &scratch)
                continue
            }
            let from = index
            try validateByte(byte)
            scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[from..<index]))
        }
        throw fail("unterminated string", at: start - 1)
    }

    /// Checks the character starting at `index` (not a quote or backslash) and moves past it.
    private mutating func validateByte(_ byte: UInt8) throws(JSONParseError) {
        if byte < 0x20 { throw fail("control character in string (escape it as \\u00XX)") }
        if byte < 0x80 {
            index += 1
            return
        }
        let length: Int
        var lower: UInt8 = 0x80, upper: UInt8 = 0xBF
        switch byte {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; upper = 0x9F  // no UTF-16 surrogates
        case 0xF0: length = 4; lower = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; upper = 0x8F  // nothing above U+10FFFF
        default: throw fail("invalid UTF-8 in string")
        }
        guard bytes.count - index >= length else { throw fail("invalid UTF-8 in string") }
        let second = bytes[index + 1]
        guard second >= lower && second <= upper else { throw fail("invalid UTF-8 in string") }
        for offset in 2..<length where bytes[index + offset] & 0xC0 != 0x80 {
            throw fail("invalid UTF-8 in string")
        }
        index += length
    }

    private mutating func parseEscape(into scratch: inout [UInt8]) throws(JSONParseError) {
        let escapeStart = index
        index += 1
        guard index < bytes.count else { throw fail("unterminated string") }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(byte)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4(escapeStart)
            if (0xD800...0xDBFF).contains(scalar) {
                // A high surrogate must be followed by an escaped low surrogate.
                if bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                    let save = index
                    index += 2
                    let low = try parseHex4(save)
                    if (0xDC00...0xDFFF).contains(low) {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else {
                        index = save  // leave the next escape for the next round
                        scalar = 0xFFFD
                    }
                } else {
                    scalar = 0xFFFD
                }
            } else if (0xDC00...0xDFFF).contains(scalar) {
                scalar = 0xFFFD
            }
            appendUTF8(Unicode.Scalar(scalar) ?? "\u{FFFD}", to: &scratch)
        default:
            throw fail("invalid escape '\\\(Character(Unicode.Scalar(byte)))' in string", at: escapeStart)
        }
    }

    private mutating func parseHex4(_ escapeStart: Int) throws(JSONParseError) -> UInt32 {
        guard bytes.count - index >= 4 else { throw fail("invalid \\u escape: expected 4 hex digits", at: escapeStart) }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = hexValue(bytes[index]) else {
                throw fail("invalid \\u escape: expected 4 hex digits", at: escapeStart)
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    // MARK: Helpers

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private func describe(_ position: Int) -> String {
        guard position < bytes.count else { return "the end of input" }
        let byte = bytes[position]
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x" + String(byte, radix: 16, uppercase: true)
    }

    private func fail(_ message: String, at position: Int? = nil) -> JSONParseError {
        JSONParseError(message: message, offset: position ?? index)
    }
}

/// The value of an ASCII hex digit, or `nil`.
func hexValue(_ byte: UInt8) -> UInt32? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte - UInt8(ascii: "A") + 10)
    default: return nil
    }
}

/// Appends the UTF-8 encoding of `scalar`.
func appendUTF8(_ scalar: Unicode.Scalar, to bytes: inout [UInt8]) {
    UTF8.encode(scalar) { bytes.append($0) }
}
