/// String parsing for `JSONByteParser`: escapes, surrogate pairs and UTF-8 validation.
extension JSONByteParser {
    /// Parses a string starting at its opening quote.
    mutating func parseString() throws(JSONParseError) -> String {
        index += 1  // opening quote
        let start = index
        // Fast path: no escapes.
        while index < bytes.count {
            // Eight bytes at a time: past printable ASCII other than `"` and `\` (the usual
            // run), straight to the first byte that is not.
            if bytes.count - index >= 8 {
                let special = Self.specialBytes(UnsafeRawPointer(bytes.baseAddress! + index))
                if special == 0 {
                    index += 8
                    continue
                }
                index += special.trailingZeroBitCount >> 3
            }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = String(copyingUTF8: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            // Printable ASCII, the usual byte, needs no other check.
            if byte >= 0x20 && byte < 0x80 {
                index += 1
                continue
            }
            try validateByte(byte)
        }
        guard index < bytes.count else { throw fail("unterminated string", at: start - 1) }
        var scratch = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return scratch.withUnsafeBufferPointer { String(copyingUTF8: $0) }
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

    /// The high bit of each of the eight bytes at `p` (in memory order from the lowest) that
    /// is not printable ASCII other than `"` and `\`: `JSONValue.escapeMask` with the bytes'
    /// own high bits (non-ASCII), exact up to the first such byte. 0: all eight are plain.
    @inline(__always)
    static func specialBytes(_ p: UnsafeRawPointer) -> UInt64 {
        let w = UInt64(littleEndian: p.loadUnaligned(as: UInt64.self))
        return JSONValue.escapeMask(w) | (w & 0x8080_8080_8080_8080)
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
}
