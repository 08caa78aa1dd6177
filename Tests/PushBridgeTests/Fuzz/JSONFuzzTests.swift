import Testing
@testable import PushBridge

/// Bounded random and hostile input for `JSONValue.parse` and the serializer.
@Suite("Fuzz: JSON parser")
struct JSONFuzzTests {
    static let tokens = ["{", "}", "[", "]", ":", ",", "\"", "\\", "\\u", "\\ud800", "\\udc00", "\\n", "true", "false",
                         "null", "-", "0", "1", "1e400", "-0.0e-0", "9223372036854775808", "é", "\u{0}", " ", "\t"]

    /// Parses `bytes`; what parses must serialize to text that parses to the same text.
    static func check(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        do throws(JSONParseError) {
            let value = try JSONValue.parse(bytes)
            let text = value.jsonText
            let again = try? JSONValue.parse(text)
            #expect(again?.jsonText == text, "not stable: \(text.prefix(80))", sourceLocation: sourceLocation)
        } catch {
            #expect((0...bytes.count).contains(error.offset), "\(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("random bytes", arguments: [UInt64(1), 2])
    func randomBytes(seed: UInt64) async {
        var rng = SeededGenerator(seed: seed)
        for _ in 0..<5_000 {
            await Task.yield()  // let other suites' tasks run (2-core machines)
            Self.check(Mutations.soup(length: Int.random(in: 0...64, using: &rng), alphabet: Self.tokens, using: &rng))
        }
    }

    @Test("mutated JSON", arguments: [UInt64(3), 4])
    func mutatedJSON(seed: UInt64) async {
        var rng = SeededGenerator(seed: seed)
        var parsed = 0
        for _ in 0..<3_000 {
            await Task.yield()  // let other suites' tasks run (2-core machines)
            let base = Array(RandomJSON.value(depth: 4, using: &rng).jsonText.utf8)
            let bytes = Mutations.mutate(base, tokens: Self.tokens, maxSteps: 2, using: &rng)
            if (try? JSONValue.parse(bytes)) != nil { parsed += 1 }
            Self.check(bytes)
        }
        #expect(parsed > 100, "some mutations should still be JSON (\(parsed) were)")
    }

    @Test("random values survive serialization", arguments: [UInt64(5)])
    func roundTrip(seed: UInt64) async throws {
        var rng = SeededGenerator(seed: seed)
        for _ in 0..<2_000 {
            await Task.yield()  // let other suites' tasks run (2-core machines)
            let text = RandomJSON.value(depth: 5, using: &rng).jsonText
            #expect(try JSONValue.parse(text).jsonText == text)
        }
    }

    @Test("100 000-deep nesting is an error, not a stack overflow")
    func deepNesting() async {
        let depth = 100_000
        for (open, close) in [("[", "]"), ("{\"a\":", "}"), ("[{\"a\":[", "]}]")] {
            await Task.yield()  // let other suites' tasks run (2-core machines)
            let text = String(repeating: open, count: depth) + "1" + String(repeating: close, count: depth)
            #expect(throws: JSONParseError.self) { try JSONValue.parse(text) }
            #expect(throws: JSONParseError.self) { try JSONValue.parse(String(repeating: open, count: depth)) }
        }
        let limit = JSONValue.maximumParseDepth
        let deepest = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        #expect((try? JSONValue.parse(deepest)) != nil)
    }

    @Test("long strings, with and without escapes")
    func longStrings() async throws {
        let plain = String(repeating: "abcdé", count: 400_000)
        #expect(try JSONValue.parse("\"\(plain)\"") == .string(plain))
        let escaped = String(repeating: "\\n\\u00e9\\ud83d\\ude00", count: 200_000)
        #expect(try JSONValue.parse("\"\(escaped)\"") == .string(String(repeating: "\né😀", count: 200_000)))
        #expect(throws: JSONParseError.self) { try JSONValue.parse("\"" + plain) }
        #expect(throws: JSONParseError.self) { try JSONValue.parse("\"" + plain + "\\") }
    }

    @Test("surrogates: pairs decode, lone halves become U+FFFD, bad hex is an error")
    func surrogates() throws {
        let cases: [(String, String)] = [
            ("\\ud83d\\ude00", "😀"), ("\\ud800", "\u{FFFD}"), ("\\udc00", "\u{FFFD}"), ("\\ud800x", "\u{FFFD}x"),
            ("\\ud800\\ud800", "\u{FFFD}\u{FFFD}"), ("\\udc00\\ud800", "\u{FFFD}\u{FFFD}"),
            ("\\ud800\\u0041", "\u{FFFD}A"), ("\\udbff\\udfff", "\u{10FFFF}"), ("\\ud800\\n", "\u{FFFD}\n"),
        ]
        for (escaped, expected) in cases {
            #expect(try JSONValue.parse("\"\(escaped)\"") == .string(expected), "\(escaped)")
        }
        for bad in ["\\ud800\\u", "\\ud800\\uzzzz", "\\ud8", "\\u", "\\x"] {
            #expect(throws: JSONParseError.self, "\(bad)") { try JSONValue.parse("\"\(bad)\"") }
        }
        // Raw UTF-8 encodings of surrogates and overlong forms are invalid UTF-8.
        for bytes: [UInt8] in [[0xED, 0xA0, 0x80], [0xC0, 0xAF], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0xFF]] {
            #expect(throws: JSONParseError.self) { try JSONValue.parse([0x22] + bytes + [0x22]) }
        }
    }

    @Test("number extremes")
    func numbers() throws {
        #expect(try JSONValue.parse("-9223372036854775808") == .int(.min))
        #expect(try JSONValue.parse("9223372036854775807") == .int(.max))
        #expect(try JSONValue.parse("9223372036854775808") == .bigInt("9223372036854775808"))
        #expect(try JSONValue.parse("-0") == .int(0))
        #expect(try JSONValue.parse("1e-400") == .double(0))
        #expect(throws: JSONParseError.self) { try JSONValue.parse("1e400") }
        let nines = "-" + String(repeating: "9", count: 400)
        #expect(try JSONValue.parse(nines) == .bigInt(nines), "integers stay exact whatever their size")
        #expect(try JSONValue.parse(nines).jsonText == nines)
        let long = "0." + String(repeating: "1", count: 100_000)
        #expect(try JSONValue.parse(long) == .double(Double(long)!))
    }
}
