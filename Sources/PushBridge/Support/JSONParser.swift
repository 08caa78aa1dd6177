/// A JSON syntax error with the UTF-8 byte offset where the problem is.
package struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, e.g. `expected ',' or ']' in array`.
    package var message: String
    /// UTF-8 byte offset into the input where the problem was found.
    package var offset: Int

    package var description: String { "\(message) at byte \(offset)" }
}

extension JSONValue {
    /// The deepest nesting of arrays and objects `parse` accepts.
    static let maximumParseDepth = 512

    /// Parses one JSON text (RFC 8259, strict) from UTF-8 bytes.
    ///
    /// Integers that fit are `.int`, other numbers `.double`; a repeated object key keeps
    /// its last value; a lone surrogate escape becomes U+FFFD. Nesting deeper than
    /// `maximumParseDepth` is an error, never a crash.
    package static func parse(_ bytes: some Collection<UInt8>) throws(JSONParseError) -> JSONValue {
        let result: Result<JSONValue, JSONParseError>? = bytes.withContiguousStorageIfAvailable { buffer in
            parseResult(buffer)
        }
        if let result { return try result.get() }
        let copy = Array(bytes)
        return try copy.withUnsafeBufferPointer { parseResult($0) }.get()
    }

    /// Parses one JSON text like `parse(_:)`, and sets `serializedSizeBound` to an upper bound
    /// of the length of the value's `jsonText` in bytes, found without serializing: the input's
    /// length (compact text, escapes as written or shorter, a repeated key dropped) plus 24
    /// bytes for each number with a fraction or an exponent, which may come out longer
    /// (`1e5` is written `100000`; no double takes more than 24 bytes).
    package static func parse(_ bytes: [UInt8], serializedSizeBound: inout Int) throws(JSONParseError) -> JSONValue {
        var doubles = 0
        let value = try bytes.withUnsafeBufferPointer { parseResult($0, doubles: &doubles) }.get()
        serializedSizeBound = bytes.count + 24 * doubles
        return value
    }

    /// Parses one JSON text (RFC 8259, strict) from a string.
    package static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        var text = text
        return try text.withUTF8 { parseResult($0) }.get()
    }

    private static func parseResult(_ buffer: UnsafeBufferPointer<UInt8>) -> Result<JSONValue, JSONParseError> {
        var doubles = 0
        return parseResult(buffer, doubles: &doubles)
    }

    /// The parse of `buffer`; `doubles` gets how many numbers were parsed as `double`.
    private static func parseResult(_ buffer: UnsafeBufferPointer<UInt8>, doubles: inout Int) -> Result<JSONValue, JSONParseError> {
        var parser = JSONByteParser(buffer)
        defer { doubles = parser.doubles }
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
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    private var depth = 0
    /// Numbers parsed as `double` so far (`JSONValue.parse(_:serializedSizeBound:)`).
    private(set) var doubles = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        if index < bytes.count { throw fail("unexpected \(describe(index)) after the value") }
        return value
    }

    // MARK: Values

    mutating func parseValue() throws(JSONParseError) -> JSONValue {
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
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object([:])
        }
        // Built in place, in input order (a repeated key keeps its last value); small
        // objects hash nothing.
        var members = JSONObject()
        members.reserveCapacity(8)
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
            // Accumulated negatively so Int64.min is exact. The first 18 digits cannot
            // overflow: only the ones after them are checked.
            let unchecked = min(bytes.count, index + 18)
            while index < unchecked, isDigit(bytes[index]) {
                integer = integer &* 10 &- Int64(bytes[index] &- UInt8(ascii: "0"))
                index += 1
            }
            while index < bytes.count, isDigit(bytes[index]) {
                if exact {
                    let (times10, o1) = integer.multipliedReportingOverflow(by: 10)
                    let (next, o2) = times10.subtractingReportingOverflow(Int64(bytes[index] &- UInt8(ascii: "0")))
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
        if isInteger { return .bigInt(text) }  // beyond Int64: kept digit for digit
        guard let double = Double(text), double.isFinite else { throw fail("number out of range", at: start) }
        doubles += 1
        return .double(double)
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

    func fail(_ message: String, at position: Int? = nil) -> JSONParseError {
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
