extension JSONValue {
    /// Compact JSON text with object keys sorted, e.g. `{"a":[1,2.5,"x"],"b":null}`.
    package var jsonText: String {
        var bytes: [UInt8] = []
        write(into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends this value as compact JSON (keys sorted) to `bytes`.
    ///
    /// Strings escape `"`, `\` and control characters and keep other characters as
    /// UTF-8. Integral doubles below 2^53 are written without a fraction (`42`),
    /// other doubles as Swift's shortest round-trip form; non-finite doubles as `null`.
    package func write(into bytes: inout [UInt8]) {
        bytes.append { write(to: &$0) }
    }

    /// Writes this value as compact JSON (keys sorted), as `write(into:)` appends it.
    func write(to bytes: inout ByteBuffer) {
        switch self {
        case .null: bytes.append("null")
        case .bool(let value): bytes.append(value ? "true" : "false")
        case .int(let value): JSONValue.writeInteger(value, to: &bytes)
        case .double(let value):
            if value.isFinite {
                bytes.append(utf8: JSONValue.numberText(value))
            } else {
                bytes.append("null")
            }
        case .bigInt(let digits): bytes.append(utf8: digits)
        case .string(let value): JSONValue.writeString(value, to: &bytes)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { bytes.append(UInt8(ascii: ",")) }
                element.write(to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            if members.count <= 16 {
                // Small objects: the members read in place, their positions sorted by key in
                // a stack buffer (insertion sort), so writing allocates and copies nothing.
                members.withMembers { m in
                    withUnsafeTemporaryAllocation(of: Int.self, capacity: m.count) { order in
                        for i in 0..<m.count {
                            var j = i
                            while j > 0 && m[i].key < m[order[j - 1]].key {
                                order[j] = order[j - 1]
                                j -= 1
                            }
                            order[j] = i
                        }
                        for k in 0..<m.count {
                            if k > 0 { bytes.append(UInt8(ascii: ",")) }
                            JSONValue.writeString(m[order[k]].key, to: &bytes)
                            bytes.append(UInt8(ascii: ":"))
                            m[order[k]].value.write(to: &bytes)
                        }
                    }
                }
            } else {
                var first = true
                for (key, value) in members.sorted(by: { $0.key < $1.key }) {
                    if !first { bytes.append(UInt8(ascii: ",")) }
                    first = false
                    JSONValue.writeString(key, to: &bytes)
                    bytes.append(UInt8(ascii: ":"))
                    value.write(to: &bytes)
                }
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// Appends the decimal digits of `value` (what `String(value)` gives) without a string.
    static func writeInteger(_ value: Int64, into bytes: inout [UInt8]) {
        bytes.append { writeInteger(value, to: &$0) }
    }

    /// Writes the decimal digits of `value`.
    static func writeInteger(_ value: Int64, to bytes: inout ByteBuffer) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        // Negative magnitudes cover Int64.min.
        var v = value < 0 ? value : -value
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            // Two digits per division (a 19-digit nanosecond stamp: 10 divisions, not 19).
            var start = 20
            while v <= -100 {
                let (q, r) = v.quotientAndRemainder(dividingBy: 100)
                let pair = Int(-r) &* 2
                start -= 2
                digits[start] = digitPairs[pair]
                digits[start + 1] = digitPairs[pair + 1]
                v = q
            }
            if v <= -10 {
                let pair = Int(-v) &* 2
                start -= 2
                digits[start] = digitPairs[pair]
                digits[start + 1] = digitPairs[pair + 1]
            } else {
                start -= 1
                digits[start] = UInt8(ascii: "0") &+ UInt8(-v)
            }
            bytes.append(UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// "00" to "99", two bytes each: the digits of `n` are at `2 * n` and `2 * n + 1`.
    private static let digitPairs: [UInt8] = (0..<100).flatMap { [UInt8(ascii: "0") + UInt8($0 / 10), UInt8(ascii: "0") + UInt8($0 % 10)] }

    /// The text of a finite double: integral values below 2^53 without a fraction
    /// (`42`), everything else in Swift's shortest round-trip form (`0.1`, `1e+16`).
    static func numberText(_ value: Double) -> String {
        if value.rounded(.towardZero) == value && value.magnitude < 9_007_199_254_740_992 {
            return String(Int64(value))
        }
        return value.description
    }

    /// Appends `string` as a quoted, escaped JSON string.
    static func writeString(_ string: String, into bytes: inout [UInt8]) {
        bytes.append { writeString(string, to: &$0) }
    }

    /// Writes `string` as a quoted, escaped JSON string.
    static func writeString(_ string: String, to bytes: inout ByteBuffer) {
        bytes.append(UInt8(ascii: "\""))
        // Fast path: most strings need no escape and go in with one copy.
        let copied = string.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
            if needsEscape(utf8) { return false }
            bytes.append(utf8)
            return true
        }
        if copied == true {
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\\")); bytes.append(byte)
            case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\")); bytes.append(byte)
            case 0x0A: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "n"))
            case 0x09: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "t"))
            case 0x0D: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "r"))
            case 0x08: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "b"))
            case 0x0C: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "f"))
            case 0..<0x20:
                bytes.append("\\u00")
                bytes.append(hexDigit(byte >> 4))
                bytes.append(hexDigit(byte & 0x0F))
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Whether `utf8` holds a byte a JSON string must escape (below 0x20, `"` or `\`), tested
    /// eight bytes at a time with `escapeMask`.
    static func needsEscape(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        if let base = UnsafeRawPointer(utf8.baseAddress) {
            while i + 8 <= utf8.count {
                if escapeMask(base.loadUnaligned(fromByteOffset: i, as: UInt64.self)) != 0 { return true }
                i += 8
            }
        }
        while i < utf8.count {
            let byte = utf8[i]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return true }
            i += 1
        }
        return false
    }

    /// The high bit of each byte of `w` (eight bytes, the lowest first) that a JSON string
    /// escapes: below 0x20 (`(w - 0x20…20) & ~w`), `"` or `\` (a zero byte in `w ^ c…c`,
    /// `(v - 0x01…01) & ~v`). Exact up to the first such byte (a borrow can mark bytes after
    /// it), so zero exactly when there is none. The writer's escape test and the parser's run
    /// of plain string bytes both read it.
    @inline(__always)
    static func escapeMask(_ w: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let quote = w ^ (ones &* 0x22), backslash = w ^ (ones &* 0x5C)
        return (((w &- ones &* 0x20) & ~w) | ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)) & highs
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
