import Testing
@testable import PushBridge

@Suite("JSON parser")
struct JSONParserTests {
    @Test("values", arguments: [
        ("null", JSONValue.null), ("true", .bool(true)), ("false", .bool(false)), ("0", .int(0)), ("-0", .int(0)),
        ("42", .int(42)), ("-17", .int(-17)), ("9223372036854775807", .int(.max)), ("-9223372036854775808", .int(.min)),
        ("9223372036854775808", .bigInt("9223372036854775808")), ("-9223372036854775809", .bigInt("-9223372036854775809")),
        ("123456789012345678901234567890", .bigInt("123456789012345678901234567890")), ("1e19", .double(1e19)), ("1.5", .double(1.5)), ("-0.25", .double(-0.25)),
        ("1e3", .double(1000)), ("1E+3", .double(1000)), ("25e-1", .double(2.5)), ("1.0", .double(1)), ("0.1", .double(0.1)),
        ("\"\"", .string("")), ("\"abc\"", .string("abc")), ("\"é✓😀\"", .string("é✓😀")),
        ("\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t\"", .string("\" \\ / \u{08} \u{0C} \n \r \t")),
        ("\"\\u0041\\u00e9\\u2713\"", .string("Aé✓")), ("\"\\uD83D\\uDE00\"", .string("😀")),
        ("\"\\ud83d\\ude00\"", .string("😀")), ("\"\\uD83D\"", .string("\u{FFFD}")), ("\"\\uDE00x\"", .string("\u{FFFD}x")),
        ("\"\\uD83Dx\"", .string("\u{FFFD}x")), ("\"\\uD83D\\u0041\"", .string("\u{FFFD}A")), ("\"\\u0000\"", .string("\u{0}")),
        ("[]", .array([])), ("{}", .object([:])), (" \t\r\n[ 1 , \"a\" , null ] \n", .array([.int(1), .string("a"), .null])),
        ("{\"a\":{\"b\":[true,false]},\"c\":1.5}", .object(["a": .object(["b": .array([.bool(true), .bool(false)])]), "c": .double(1.5)])),
        ("{\"k\":1,\"k\":2}", .object(["k": .int(2)])), ("[[[]]]", .array([.array([.array([])])])),
        ("{\"\":0}", .object(["": .int(0)])), ("\"a\\\"b\"", .string("a\"b")),
    ])
    func values(text: String, expected: JSONValue) throws {
        #expect(try JSONValue.parse(text) == expected)
        #expect(try JSONValue.parse(Array(text.utf8)) == expected)
        #expect(try JSONValue.parse(text.utf8.lazy.map { $0 }) == expected)  // non-contiguous path
    }

    @Test("integers around 18 and 19 digits (the unchecked first 18 digits and the checked rest)", arguments: [
        ("999999999999999999", JSONValue.int(999_999_999_999_999_999)), ("-999999999999999999", .int(-999_999_999_999_999_999)),
        ("1000000000000000000", .int(1_000_000_000_000_000_000)), ("-1000000000000000000", .int(-1_000_000_000_000_000_000)),
        ("9999999999999999999", .bigInt("9999999999999999999")), ("-9999999999999999999", .bigInt("-9999999999999999999")),
        ("00", nil), ("1234567890123456789.5", .double(1234567890123456789.5)), ("18446744073709551616", .bigInt("18446744073709551616")),
    ])
    func longIntegers(text: String, expected: JSONValue?) throws {
        if let expected {
            #expect(try JSONValue.parse(text) == expected)
        } else {
            #expect(throws: JSONParseError.self) { try JSONValue.parse(text) }
        }
    }

    @Test("errors: message and byte offset", arguments: [
        ("", "expected a value, found the end of input", 0),
        ("   ", "expected a value, found the end of input", 3),
        ("[1,]", "expected a value, found ']'", 3),
        ("{\"a\":1,}", "expected a string key in object, found '}'", 7),
        ("[1 2]", "expected ',' or ']' in array, found '2'", 3),
        ("{\"a\" 1}", "expected ':' after object key, found '1'", 5),
        ("{\"a\":1 \"b\":2}", "expected ',' or '}' in object, found '\"'", 7),
        ("{a:1}", "expected a string key in object, found 'a'", 1),
        ("[1", "expected ',' or ']' in array, found the end of input", 2),
        ("{\"a\":1", "expected ',' or '}' in object, found the end of input", 6),
        ("1 2", "unexpected '2' after the value", 2),
        ("{} x", "unexpected 'x' after the value", 3),
        ("tru", "expected a value, found 't'", 0),
        ("nul", "expected a value, found 'n'", 0),
        ("True", "expected a value, found 'T'", 0),
        ("NaN", "expected a value, found 'N'", 0),
        ("Infinity", "expected a value, found 'I'", 0),
        ("// c\n1", "expected a value, found '/'", 0),
        ("01", "invalid number: leading zero", 0),
        ("-", "invalid number: expected a digit", 1),
        ("-a", "invalid number: expected a digit", 1),
        ("+1", "expected a value, found '+'", 0),
        ("1.", "invalid number: expected a digit after '.'", 2),
        (".5", "expected a value, found '.'", 0),
        ("1e", "invalid number: expected a digit in the exponent", 2),
        ("1e+", "invalid number: expected a digit in the exponent", 3),
        ("1e999", "number out of range", 0),
        ("\"abc", "unterminated string", 0),
        ("[\"a\\", "unterminated string", 4),
        ("\"a\nb\"", "control character in string (escape it as \\u00XX)", 2),
        ("\"\\x\"", "invalid escape '\\x' in string", 1),
        ("\"\\u12\"", "invalid \\u escape: expected 4 hex digits", 1),
        ("\"\\uGGGG\"", "invalid \\u escape: expected 4 hex digits", 1),
        ("'a'", "expected a value, found '''", 0),
        ("\u{FEFF}1", "expected a value, found byte 0xEF", 0),
    ])
    func errors(text: String, message: String, offset: Int) {
        #expect(throws: JSONParseError(message: message, offset: offset)) { try JSONValue.parse(text) }
    }

    @Test("invalid UTF-8 inside strings is an error", arguments: [
        [0x22, 0xFF, 0x22], [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xE0, 0x80, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22],
        [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], [0x22, 0xC3, 0x22], [0x22, 0xE2, 0x9C, 0x22], [0x22, 0x80, 0x22],
        [0x22, 0x61, 0x5C, 0x6E, 0xFE, 0x22],
    ] as [[UInt8]])
    func invalidUTF8(bytes: [UInt8]) {
        #expect(throws: JSONParseError.self) { try JSONValue.parse(bytes) }
        do {
            _ = try JSONValue.parse(bytes)
        } catch {
            #expect(error.message == "invalid UTF-8 in string")
        }
    }

    @Test("valid multi-byte UTF-8 at the edges is accepted")
    func validUTF8Edges() throws {
        for scalar in ["\u{80}", "\u{7FF}", "\u{800}", "\u{D7FF}", "\u{E000}", "\u{FFFF}", "\u{10000}", "\u{10FFFF}"] {
            #expect(try JSONValue.parse("[\"\(scalar)\", \"a\\n\(scalar)\"]") == .array([.string(scalar), .string("a\n" + scalar)]))
        }
    }

    @Test("100 000-deep input is a clean error; 512 deep is fine")
    func deepNesting() throws {
        for opener in ["[", "{\"a\":"] {
            let text = String(repeating: opener, count: 100_000)
            #expect(throws: JSONParseError(message: "nesting too deep (limit 512)", offset: 512 * opener.utf8.count)) {
                try JSONValue.parse(text)
            }
        }
        let ok = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        var value = try JSONValue.parse(ok)
        var depth = 0
        while case .array(let inner) = value {
            depth += 1
            value = inner.first ?? .null
        }
        #expect(depth == 512)
        #expect(throws: JSONParseError.self) { try JSONValue.parse("[" + ok + "]") }
    }

    @Test("JSONParseError describes itself with the offset")
    func errorDescription() {
        #expect(JSONParseError(message: "m", offset: 4).description == "m at byte 4")
    }

    /// Objects are built in place as members arrive: every size (past the first table's
    /// room too), nested objects in between, and repeated keys keep the last value.
    @Test("objects of every size, nested and with repeated keys")
    func objectSizes() throws {
        for count in 0...40 {
            var expected: [String: JSONValue] = [:]
            var members: [String] = []
            for i in 0..<count {
                let key = "k\(i % max(1, count - 3))"  // the last few keys repeat earlier ones
                let value: JSONValue = i % 4 == 0 ? .object(["in": .int(Int64(i)), "x": .string("\(i)")]) : .int(Int64(i))
                expected[key] = value
                members.append("\"\(key)\":\(value.jsonText)")
            }
            let text = "{" + members.joined(separator: ",") + "}"
            #expect(try JSONValue.parse(text) == .object(JSONObject(expected)), "\(count) members")
            #expect(try JSONValue.parse("[\(text),\(text)]") == .array([.object(JSONObject(expected)), .object(JSONObject(expected))]))
        }
    }
    /// Repeated keys are found by their bytes while every key is plain ASCII, and as
    /// `String`s from the first key that is not: either way a key keeps its first position
    /// and its last value.
    @Test("repeated keys: escaped, non-ASCII, past the sixteenth member")
    func repeatedKeys() throws {
        func object(_ text: String) throws -> JSONObject {
            guard case .object(let o) = try JSONValue.parse(text) else { throw JSONParseError(message: "not an object", offset: 0) }
            return o
        }
        var o = try object(#"{"a":1,"b":2,"a":3}"#)
        #expect(o.keys == ["a", "b"] && o["a"] == .int(3))
        o = try object(#"{"a":1,"\u0061":2,"b":3,"a":4}"#)  // an escape spelling "a"
        #expect(o.keys == ["a", "b"] && o["a"] == .int(4) && o["b"] == .int(3))
        o = try object(#"{"\u0061":1,"a":2}"#)
        #expect(o.keys == ["a"] && o["a"] == .int(2))
        // Non-ASCII keys (NFC and NFD spellings of "é"): as the object's own key lookup decides.
        o = try object("{\"é\":1,\"e\u{301}\":2,\"x\":3,\"é\":4}")
        var built = JSONObject()
        for (key, value) in [("é", 1), ("e\u{301}", 2), ("x", 3), ("é", 4)] { built[key] = .int(Int64(value)) }
        #expect(o.keys == built.keys && o.values == built.values)
        // Many keys of the same lengths and first bytes, one repeated at the end.
        let crowdedKeys = (0..<70).map { String(repeating: "q", count: $0 % 9 + 1) + String(UnicodeScalar(UInt8(97 + $0 / 9))) }
        o = try object("{" + crowdedKeys.enumerated().map { "\"\($0.element)\":\($0.offset)" }.joined(separator: ",")
                       + ",\"\(crowdedKeys[5])\":\"again\"}")
        #expect(o.keys == crowdedKeys && o[crowdedKeys[5]] == .string("again") && o[crowdedKeys[6]] == .int(6))
        o = try object(#"{"ab":1,"ba":2,"a":3,"b":4,"ab":5}"#)  // same lengths, other bytes
        #expect(o.keys == ["ab", "ba", "a", "b"] && o["ab"] == .int(5))
        let many = (0..<20).map { "\"k\($0)\":\($0)" } + [#""k3":"again""#, #""k18":"late""#, #""k0":null"#]
        o = try object("{" + many.joined(separator: ",") + "}")
        #expect(o.count == 20 && o.keys == (0..<20).map { "k\($0)" })
        #expect(o["k3"] == .string("again") && o["k18"] == .string("late") && o["k0"] == .null && o["k19"] == .int(19))
    }
    @Test("the eight-byte test for plain string bytes finds what a byte-by-byte test finds, and where")
    func specialBytes() throws {
        func naive(_ bytes: [UInt8]) -> Bool { bytes.allSatisfy { $0 >= 0x20 && $0 < 0x80 && $0 != 0x22 && $0 != 0x5C } }
        for filler: UInt8 in [0x61, 0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7F, 0x80, 0xC3, 0xFF, 0x00] {
            for position in 0..<8 {
                for byte in 0...255 {
                    var bytes = [UInt8](repeating: filler, count: 8)
                    bytes[position] = UInt8(byte)
                    let special = bytes.withUnsafeBytes { JSONByteParser.specialBytes($0.baseAddress!) }
                    let first = bytes.firstIndex { !naive([$0]) }
                    if (special == 0) != naive(bytes) || (first.map { special.trailingZeroBitCount >> 3 == $0 } ?? true) == false {
                        Issue.record("\(bytes): \(String(special, radix: 16))"); return
                    }
                }
            }
        }
        // Strings whose quote, escape, control or non-ASCII byte falls at each place of a word.
        for length in 0...20 {
            for position in 0...length {
                for special in ["\\\"", "\\n", "é", "\\u00e9", "😀"] {
                    let body = String(repeating: "k", count: position) + special + String(repeating: "v", count: length - position)
                    let parsed = try JSONValue.parse("[\"\(body)\",1]")
                    let expected = String(repeating: "k", count: position)
                        + ["\\\"": "\"", "\\n": "\n", "é": "é", "\\u00e9": "é", "😀": "😀"][special]!
                        + String(repeating: "v", count: length - position)
                    #expect(parsed == .array([.string(expected), .int(1)]))
                }
                #expect(throws: JSONParseError.self) {
                    try JSONValue.parse("\"" + String(repeating: "k", count: position) + "\u{1}" + String(repeating: "v", count: length - position) + "\"")
                }
            }
        }
    }

    /// Random JSON texts written every way the grammar allows (white space, escapes, exponents,
    /// big integers, repeated keys, nesting).
    static func randomJSON(_ depth: Int, _ rng: inout some RandomNumberGenerator) -> String {
        func ws() -> String { ["", " ", "\n\t ", "\r\n"].randomElement(using: &rng)! }
        func string() -> String {
            let pieces = ["a", "é", "✓", "😀", "\\\"", "\\\\", "\\/", "\\n", "\\u0001", "\\u00e9", "\\ud83d\\ude00",
                          "\\ud800", "\\u007f", "x y", "key"]
            return "\"" + (0..<Int.random(in: 0...5, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined() + "\""
        }
        let numbers = ["0", "-0", "1", "-1", "42", "1e5", "1E+2", "-2.5e-3", "0.1", "1.0", "100.00", "9007199254740993",
                       "123456789012345678901234567890", "-9223372036854775809", "1e300", "4.9e-324", "0.30000000000000004",
                       "12345678901234567890.5", "1e22"]
        switch depth <= 0 ? Int.random(in: 0..<4, using: &rng) : Int.random(in: 0..<6, using: &rng) {
        case 0: return string()
        case 1: return numbers.randomElement(using: &rng)!
        case 2: return ["true", "false", "null"].randomElement(using: &rng)!
        case 3: return numbers.randomElement(using: &rng)!
        case 4:
            let items = (0..<Int.random(in: 0...4, using: &rng)).map { _ in ws() + randomJSON(depth - 1, &rng) + ws() }
            return "[" + items.joined(separator: ",") + "]"
        default:
            let keys = ["a", "b", "room", "é", "a"]  // "a" twice: a repeated key
            let members = (0..<Int.random(in: 0...5, using: &rng)).map { _ in
                ws() + "\"" + keys.randomElement(using: &rng)! + "\"" + ws() + ":" + ws() + randomJSON(depth - 1, &rng) + ws()
            }
            return "{" + members.joined(separator: ",") + "}"
        }
    }

    @Test("the serialized size bound is never below the text the value writes")
    func serializedSizeBound() throws {
        var rng = SystemRandomNumberGenerator()
        var checked = 0
        for _ in 0..<3_000 {
            let text = Self.randomJSON(3, &rng)
            var bound = 0
            let value = try JSONValue.parse(Array(text.utf8), serializedSizeBound: &bound)
            #expect(value == (try JSONValue.parse(text)), "the same value as parse(_:)")
            #expect(value.jsonText.utf8.count <= bound, "\(text) → \(value.jsonText)")
            checked += 1
        }
        // The cases that grow: an exponent written out, a short double written long.
        for text in ["1e5", "[1e5,1e5,1e5]", "1e22", "{\"a\":1e300}", "4.9e-324", "[0.1e1]"] {
            var bound = 0
            let value = try JSONValue.parse(Array(text.utf8), serializedSizeBound: &bound)
            #expect(value.jsonText.utf8.count <= bound, "\(text) → \(value.jsonText)")
        }
        var bound = -1
        #expect(throws: JSONParseError.self) { try JSONValue.parse(Array("{\"a\":".utf8), serializedSizeBound: &bound) }
        #expect(bound == -1, "left as it was on an error")
        #expect(checked == 3_000)
    }
}
