import Testing
@testable import PushBridge

@Suite("JSON serializer")
struct JSONSerializerTests {
    @Test("compact text", arguments: [
        (JSONValue.null, "null"), (.bool(true), "true"), (.bool(false), "false"), (.int(0), "0"), (.int(-42), "-42"),
        (.int(.max), "9223372036854775807"), (.int(.min), "-9223372036854775808"), (.double(42.0), "42"),
        (.double(-0.0), "0"), (.double(0.1), "0.1"), (.double(-2.5), "-2.5"), (.double(1e300), "1e+300"),
        (.double(9_007_199_254_740_991), "9007199254740991"), (.double(9_007_199_254_740_992), "9007199254740992.0"),
        (.double(1e16), "1e+16"), (.double(-1e20), "-1e+20"),
        (.double(1e-7), "1e-07"), (.double(.infinity), "null"), (.double(-.infinity), "null"), (.double(.nan), "null"),
        (.string(""), "\"\""), (.string("a\"b\\c/d"), "\"a\\\"b\\\\c/d\""),
        (.string("\n\t\r\u{08}\u{0C}"), "\"\\n\\t\\r\\b\\f\""), (.string("\u{0}\u{1}\u{1F}\u{7F}"), "\"\\u0000\\u0001\\u001f\u{7F}\""),
        (.string("é✓😀\u{2028}"), "\"é✓😀\u{2028}\""), (.array([]), "[]"), (.object([:]), "{}"),
        (.array([.int(1), .null, .string("x"), .array([.bool(false)])]), "[1,null,\"x\",[false]]"),
        (.object(["b": .int(1), "a": .object(["z": .null, "y": .double(1.5)]), "A": .array([])]),
         "{\"A\":[],\"a\":{\"y\":1.5,\"z\":null},\"b\":1}"),
        (.object(["k\"ey": .int(1)]), "{\"k\\\"ey\":1}"),
    ])
    func text(value: JSONValue, expected: String) {
        #expect(value.jsonText == expected)
        var bytes: [UInt8] = [0x20]
        value.write(into: &bytes)
        #expect(bytes == [0x20] + Array(expected.utf8))
    }

    @Test("integers: every digit count, both signs, the edges, against String(_:)")
    func integers() {
        var values: [Int64] = [0, .max, .min, .max - 1, .min + 1]
        var power: Int64 = 1
        for digits in 1...19 {  // power = 10^(digits - 1)
            values += [power - 1, power, power + 1, 2 * power - 1, 9 * power]
            if digits < 19 { power *= 10 }
        }
        values += (0..<2_000).map { _ in Int64.random(in: .min ... .max) }
        values += (0..<1_000).map { _ in Int64.random(in: -100_000 ... 100_000) }
        for v in values + values.map({ $0 == .min ? .max : -$0 }) {
            #expect(JSONValue.int(v).jsonText == String(v))
        }
    }

    @Test("round trips through the parser", arguments: [
        JSONValue.null, .bool(true), .int(.min), .int(.max), .double(0.1), .double(-1.25e-300), .double(1.7976931348623157e308),
        .double(9_007_199_254_740_992), .string("\u{0}\u{1F}\"\\ é ✓ 😀 \u{FFFD}"),
        .array([.int(1), .double(2.5), .string("three"), .null, .array([]), .object([:])]),
        .object(["nested": .object(["list": .array([.bool(false), .string("\n")])]), "": .int(0), "ü": .string("u")]),
    ])
    func roundTrip(value: JSONValue) throws {
        #expect(try JSONValue.parse(value.jsonText) == value)
    }

    @Test("integral doubles below 2^53 come back as integers")
    func integralDoubles() throws {
        #expect(try JSONValue.parse(JSONValue.double(42).jsonText) == .int(42))
        #expect(try JSONValue.parse(JSONValue.double(-3).jsonText) == .int(-3))
    }

    @Test("text round trips: parse then serialize is stable")
    func textRoundTrip() throws {
        let text = "{\"a\":[1,2.5,\"x\",{\"b\":null}],\"c\":true,\"d\":\"\\u0001\\n\",\"e\":-9223372036854775808}"
        #expect(try JSONValue.parse(text).jsonText == text)
        let messy = " { \"z\" : 1 , \"a\" : [ true , 1e2 ] } "
        #expect(try JSONValue.parse(messy).jsonText == "{\"a\":[true,100],\"z\":1}")
    }

    @Test("values larger than the writer's stack room, appended after what is there")
    func large() throws {
        let big = JSONValue.object(["s": .string(String(repeating: "\"é\u{1}", count: 500)),
                                    "a": .array((0..<400).map { .int(Int64($0) * 1_000_003) })])
        var bytes: [UInt8] = Array("x".utf8)
        big.write(into: &bytes)
        #expect(bytes.count > 2 * ByteBuffer.stackCapacity)
        #expect(String(decoding: bytes.dropFirst(), as: UTF8.self) == big.jsonText)
        #expect(try JSONValue.parse(big.jsonText) == big)
        var text: [UInt8] = []
        JSONValue.writeString(String(repeating: "ab\n", count: 800), into: &text)
        #expect(text.count == 2 + 800 * 4)
    }

    @Test("keys are written in String's order, in place (≤ 16 members) and through a sort (more)")
    func keyOrder() {
        let keys = ["", "a", "A", "ab", "aB", "b", "room", "room2", "roo", "who", "~", " ", "0", "9", "_x",
                    "ae\u{301}", "af", "a\u{E9}", "caf\u{E8}", "cafe\u{301}", "cafe", "z\u{1F600}", "\u{FF}", "\u{7F}"]
        for count in [2, 5, 16] {
            for start in stride(from: 0, to: keys.count, by: 3) {
                let some = (0..<count).map { keys[(start + $0 * 5) % keys.count] }
                let object = JSONValue.object(JSONObject(Dictionary(some.map { ($0, JSONValue.null) }) { a, _ in a }))
                let expected = Set(some).sorted().map { JSONValue.string($0).jsonText + ":null" }.joined(separator: ",")
                #expect(object.jsonText == "{\(expected)}")
            }
        }
        // Written sorted in either path (≤ 16 members in place, more through `sorted`).
        for count in [5, 16, 17, 40] {
            let members = (0..<count).map { ("k\(($0 * 7) % count)", JSONValue.int(Int64($0))) }
            let object = JSONValue.object(JSONObject(Dictionary(uniqueKeysWithValues: members)))
            let expected = members.sorted { $0.0 < $1.0 }.map { "\"\($0.0)\":\($0.1.jsonText)" }.joined(separator: ",")
            #expect(object.jsonText == "{\(expected)}")
        }
    }

    @Test("the eight-bytes-at-a-time escape test agrees with a byte-by-byte one")
    func needsEscape() {
        func naive(_ bytes: [UInt8]) -> Bool { bytes.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C } }
        // Every byte value at every position of 0…24-byte buffers, among fillers next to the edges.
        for filler: UInt8 in [0x61, 0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7F, 0x80, 0xC3, 0xFF] {
            for length in 1...24 {
                for position in 0..<length {
                    for byte in 0...255 {
                        var bytes = [UInt8](repeating: filler, count: length)
                        bytes[position] = UInt8(byte)
                        let fast = bytes.withUnsafeBufferPointer { JSONValue.needsEscape($0) }
                        if fast != naive(bytes) { Issue.record("\(bytes)"); return }
                    }
                }
            }
            #expect(!(Array(repeating: filler, count: 0).withUnsafeBufferPointer { JSONValue.needsEscape($0) }))
        }
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let bytes = (0..<Int.random(in: 0...40, using: &rng)).map { _ in
                Bool.random(using: &rng) ? UInt8.random(in: 0x20...0x7E, using: &rng) : UInt8.random(in: 0...255, using: &rng)
            }
            #expect(bytes.withUnsafeBufferPointer { JSONValue.needsEscape($0) } == naive(bytes))
        }
        #expect(JSONValue.string("a\"b\\c\u{1}d".padding(toLength: 30, withPad: "x", startingAt: 0)).jsonText
                == #""a\"b\\c\u0001dxxxxxxxxxxxxxxxxxxxxxxx""#)
    }
}
