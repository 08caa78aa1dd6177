import Testing
@testable import PushBridge

/// `fixed(n)`, `number`, `trim` and integers beyond Int64, on the shapes
/// device payloads really have: ESPHome's `242.10`, Zigbee2MQTT's `"15.00"`, trailing newlines.
@Suite("Language: number pipes and exact integers")
struct NumberPipeTests {
    static let device = TestContext([
        .payload: .object([
            "voltage": .double(242.1), "energy": .int(251), "battery": .string("15.00"),
            "padded": .string(" 242.10\n"), "word": .string("low"), "big": .bigInt("9999999999999999999"),
            "neg": .double(-0.001), "flag": .bool(true), "hex": .string("0x1F"), "inf": .string("inf"),
            "exp": .string("1.5e3"), "plus": .string("+7"), "zeros": .string("007"),
        ]),
        .raw: .string("on\r\n"),
    ])

    @Test("pipe results", arguments: [
        // fixed(n): exactly n decimals, half away from zero, texts that read as numbers too
        ("251 | fixed(2)", JSONValue.string("251.00")), ("payload.voltage | fixed(2)", .string("242.10")),
        ("payload.energy | fixed(0)", .string("251")), ("2.675 | fixed(2)", .string("2.68")),
        ("-2.675 | fixed(2)", .string("-2.68")), ("0.5 | fixed(0)", .string("1")), ("-0.5 | fixed(0)", .string("-1")),
        ("payload.neg | fixed(2)", .string("0.00")), ("1.005 | fixed(2)", .string("1.01")),
        ("payload.battery | fixed(1)", .string("15.0")), ("payload.padded | fixed(1)", .string("242.1")),
        ("payload.big | fixed(1)", .string("9999999999999999999.0")), ("payload.exp | fixed(0)", .string("1500")),
        ("1e20 | fixed(1)", .string("100000000000000000000.0")), ("0.1 | fixed(15)", .string("0.100000000000000")),
        ("payload.word | fixed(2)", .string("low")), ("payload.flag | fixed(2)", .bool(true)),
        ("null | fixed(2)", .null), ("payload.hex | fixed(1)", .string("0x1F")), ("payload.inf | fixed(1)", .string("inf")),
        // number: the number a text holds, null otherwise; numbers pass through
        ("payload.battery | number", .double(15)), ("payload.padded | number", .double(242.1)),
        ("'12' | number", .int(12)), ("payload.plus | number", .int(7)), ("payload.zeros | number", .int(7)),
        ("'9999999999999999999' | number", .bigInt("9999999999999999999")), ("payload.exp | number", .double(1500)),
        ("payload.word | number", .null), ("'' | number", .null), ("payload.hex | number", .null),
        ("payload.inf | number", .null), ("'nan' | number", .null), ("'1.' | number", .double(1)), ("'.5' | number", .double(0.5)),
        ("'1e' | number", .null), ("'-' | number", .null), ("payload.energy | number", .int(251)),
        ("payload.flag | number", .null), ("null | number", .null), ("[1] | number", .null),
        // trim: white space and newlines at both ends
        ("raw | trim", .string("on")), ("payload.padded | trim", .string("242.10")), ("'  a b  ' | trim", .string("a b")),
        ("42 | trim", .string("42")), ("null | trim", .string("")), ("'\\t\\n' | trim", .string("")),
        // comparisons that need them (a pipe binds loosest: parenthesize it)
        ("(payload.battery | number) < 20", .bool(true)), ("payload.battery < 20", .bool(false)),
        ("(payload.padded | number) == 242.1", .bool(true)), ("(raw | trim) == 'on'", .bool(true)),
    ])
    func pipes(source: String, expected: JSONValue) throws {
        #expect(try evaluate(source, Self.device) == expected, "\(source)")
    }

    @Test("fixed takes one integer literal from 0 to 15; number and trim take none", arguments: [
        "1 | fixed", "1 | fixed(16)", "1 | fixed(-1)", "1 | fixed(payload.n)", "1 | fixed(1, 2)",
        "'1' | number(1)", "'a' | trim(1)",
    ])
    func arity(source: String) {
        #expect(expressionError(source) != nil, "\(source) should not parse")
    }

    @Test("integers beyond Int64 render, compare and serialize with all their digits")
    func bigIntegers() throws {
        let payload = try JSONValue.parse(#"{"id":9999999999999999999,"neg":-123456789012345678901234567890,"small":5}"#)
        let context = TestContext([.payload: payload])
        #expect(try Template.parse("{{ payload.id }} {{ payload.neg }}").render(in: context)
                == "9999999999999999999 -123456789012345678901234567890")
        #expect(try evaluate("payload.id == 9999999999999999999", context) == .bool(true))
        #expect(try evaluate("payload.id > payload.small", context) == .bool(true))
        #expect(try evaluate("payload.neg < payload.small", context) == .bool(true))
        #expect(try evaluate("payload.id | json", context) == .string("9999999999999999999"))
        #expect(payload.jsonText == #"{"id":9999999999999999999,"neg":-123456789012345678901234567890,"small":5}"#)
        #expect(try evaluate("payload.id in [1, 9999999999999999999]", context) == .bool(true))
        #expect(try evaluate("!payload.id", context) == .bool(false))
    }

    @Test("decimal texts", arguments: [
        ("1", true), ("-1", true), ("+1.5", true), ("1.", true), (".5", true), ("1e5", true), ("1E-5", true),
        ("", false), (".", false), ("e5", false), ("1e", false), ("1e+", false), ("0x10", false), ("inf", false),
        ("1 2", false), ("--1", false), ("1.2.3", false),
    ])
    func decimalTexts(text: String, valid: Bool) {
        #expect(JSONValue.isDecimalText(Substring(text)) == valid, "\(text)")
    }
}
