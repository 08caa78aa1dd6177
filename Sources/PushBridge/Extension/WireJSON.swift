// STOPGAP until the Language helper's JSONValue.parse / jsonText land on main; this file is
// deleted at that merge and its two call sites switched over.

/// Minimal JSON reading and writing for the external extension's wire lines.
enum WireJSON {
    struct SyntaxError: Error, CustomStringConvertible {
        var description: String
    }

    /// Parses one JSON text.
    static func parse(_ text: String) throws -> JSONValue {
        var parser = Parser(bytes: Array(text.utf8))
        parser.skipSpace()
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.index == parser.bytes.count else { throw SyntaxError(description: "trailing characters") }
        return value
    }

    /// Compact JSON text with sorted keys.
    static func text(_ value: JSONValue) -> String {
        var out = ""
        write(value, to: &out)
        return out
    }

    private static func write(_ value: JSONValue, to out: inout String) {
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d):
            if !d.isFinite { out += "null" } else if d.rounded() == d, abs(d) < 1e15 { out += String(Int64(d)) } else { out += "\(d)" }
        case .string(let s): quote(s, to: &out)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                write(item, to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, key) in members.keys.sorted().enumerated() {
                if i > 0 { out += "," }
                quote(key, to: &out)
                out += ":"
                write(members[key]!, to: &out)
            }
            out += "}"
        }
    }

    private static func quote(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        func fail(_ what: String) -> SyntaxError { SyntaxError(description: "\(what) at byte \(index)") }

        mutating func value(depth: Int) throws -> JSONValue {
            guard depth < 512 else { throw fail("nesting too deep") }
            guard index < bytes.count else { throw fail("unexpected end") }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                index += 1
                var members: [String: JSONValue] = [:]
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
                while true {
                    skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a key") }
                    let key = try string()
                    skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
                    index += 1
                    skipSpace()
                    members[key] = try value(depth: depth + 1)
                    skipSpace()
                    guard index < bytes.count else { throw fail("unexpected end") }
                    if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                    if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
                    throw fail("expected ',' or '}'")
                }
            case UInt8(ascii: "["):
                index += 1
                var items: [JSONValue] = []
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
                while true {
                    skipSpace()
                    items.append(try value(depth: depth + 1))
                    skipSpace()
                    guard index < bytes.count else { throw fail("unexpected end") }
                    if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                    if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
                    throw fail("expected ',' or ']'")
                }
            case UInt8(ascii: "\""):
                return .string(try string())
            case UInt8(ascii: "t"): return try literal("true", .bool(true))
            case UInt8(ascii: "f"): return try literal("false", .bool(false))
            case UInt8(ascii: "n"): return try literal("null", .null)
            default:
                return try number()
            }
        }

        mutating func literal(_ word: String, _ value: JSONValue) throws -> JSONValue {
            let w = Array(word.utf8)
            guard index + w.count <= bytes.count, Array(bytes[index..<index + w.count]) == w else { throw fail("bad literal") }
            index += w.count
            return value
        }

        mutating func number() throws -> JSONValue {
            let start = index
            var isInteger = true
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
            while index < bytes.count {
                let b = bytes[index]
                if b >= 0x30 && b <= 0x39 { index += 1; continue }
                if b == UInt8(ascii: ".") || b == UInt8(ascii: "e") || b == UInt8(ascii: "E")
                    || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") { isInteger = false; index += 1; continue }
                break
            }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            if isInteger, let i = Int64(text) { return .int(i) }
            guard !text.isEmpty, text != "-", let d = Double(text) else { throw fail("bad number") }
            return .double(d)
        }

        mutating func hex4() throws -> UInt32 {
            guard index + 4 <= bytes.count, let v = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
            else { throw fail("bad \\u escape") }
            index += 4
            return v
        }

        mutating func string() throws -> String {
            index += 1   // opening quote
            var scalars = String.UnicodeScalarView()
            var run = index
            func flush(_ p: inout Parser, upTo end: Int) {
                scalars.append(contentsOf: String(decoding: p.bytes[run..<end], as: UTF8.self).unicodeScalars)
            }
            while index < bytes.count {
                let b = bytes[index]
                if b == UInt8(ascii: "\"") {
                    flush(&self, upTo: index)
                    index += 1
                    return String(scalars)
                }
                if b < 0x20 { throw fail("control character in string") }
                if b != UInt8(ascii: "\\") { index += 1; continue }
                flush(&self, upTo: index)
                index += 1
                guard index < bytes.count else { break }
                let e = bytes[index]
                index += 1
                switch e {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800..<0xDC00).contains(code), index + 6 <= bytes.count,
                       bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                        index += 2
                        let low = try hex4()
                        if (0xDC00..<0xE000).contains(low) {
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            scalars.append("\u{FFFD}")
                            code = low
                        }
                    }
                    scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
                default: throw fail("bad escape")
                }
                run = index
            }
            throw fail("unterminated string")
        }
    }
}
