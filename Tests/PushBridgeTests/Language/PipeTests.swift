import Testing
@testable import PushBridge

@Suite("Language pipes")
struct PipeTests {
    @Test("pipe results", arguments: [
        ("payload.missing | default('none')", JSONValue.string("none")),
        ("payload.nothing | default(1)", .int(1)), ("payload.empty | default('e')", .string("e")),
        ("payload.s | default('x')", .string("Hello")), ("0 | default(1)", .int(0)), ("false | default(1)", .bool(false)),
        ("[] | default(1)", .array([])), ("payload.missing | default(payload.n * 2)", .int(10)),
        ("payload.missing | default(null)", .null),
        ("payload.s | upper", .string("HELLO")), ("payload.s | lower", .string("hello")), ("'ß' | upper", .string("SS")),
        ("'ÉCOLE' | lower", .string("école")), ("42 | upper", .string("42")), ("true | upper", .string("TRUE")),
        ("null | upper", .string("")), ("payload.s | upper()", .string("HELLO")),
        ("2.5 | round", .int(3)), ("-2.5 | round", .int(-3)), ("2.4 | round", .int(2)), ("-2.4 | round()", .int(-2)),
        ("0.5 | round(0)", .int(1)), ("7 | round", .int(7)), ("7 | round(2)", .int(7)),
        ("1.005 | round(2)", .double(1.01)), ("-1.005 | round(2)", .double(-1.01)), ("0.125 | round(2)", .double(0.13)),
        ("3.14159 | round(3)", .double(3.142)), ("2.675 | round(2)", .double(2.68)), ("1e-7 | round(3)", .double(0)),
        ("1e20 | round", .double(1e20)), ("'2.5' | round", .string("2.5")), ("null | round", .null),
        ("'Hello world' | truncate(5)", .string("Hello")), ("'Hi' | truncate(5)", .string("Hi")),
        ("'héllo' | truncate(2)", .string("hé")), ("'👍🏽👍🏽👍🏽' | truncate(2)", .string("👍🏽👍🏽")),
        ("12345 | truncate(3)", .string("123")), ("[1, 2] | truncate(4)", .string("[1,2")), ("'abc' | truncate(0)", .string("")),
        ("null | truncate(3)", .string("")),
        ("payload.a | json", .string("{\"b\":7}")), ("'x\"y' | json", .string("\"x\\\"y\"")), ("null | json", .string("null")),
        ("2.0 | json", .string("2")), ("[1, 'a'] | json", .string("[1,\"a\"]")),
    ])
    func pipes(source: String, expected: JSONValue) throws {
        #expect(try evaluate(source) == expected)
    }

    @Test("pipes bind loosest and chain left to right")
    func precedence() throws {
        #expect(try evaluate("payload.n + 1 | default(0)") == .int(6))
        #expect(try evaluate("payload.missing + 1 | default(0)") == .int(0))
        #expect(try evaluate("(payload.missing | default(1)) + 1") == .int(2))
        #expect(try evaluate("payload.s + ' there' | upper | truncate(8)") == .string("HELLO TH"))
        #expect(try evaluate("payload.missing | default('') | default('second')") == .string("second"))
        #expect(try evaluate("1 == 1 | json") == .string("true"))
        #expect(try evaluate("[payload.s | lower, 2]") == .array([.string("hello"), .int(2)]))
        #expect(try evaluate("payload.items[payload.missing | default(1)]") == .string("y"))
        #expect(try evaluate("payload.f | round | json") == .string("3"))
    }

    @Test("unknown pipes and wrong arity are parse errors", arguments: [
        ("topic | bogus", "unknown pipe 'bogus'; known pipes: default, upper, lower, round, truncate, json, fixed, number, trim, join, length", 8),
        ("topic | default", "'default' expects 1 argument, got 0", 8),
        ("topic | default()", "'default' expects 1 argument, got 0", 8),
        ("topic | default(1, 2)", "'default' expects 1 argument, got 2", 8),
        ("topic | upper(1)", "'upper' takes no arguments, got 1", 8),
        ("topic | lower(1)", "'lower' takes no arguments, got 1", 8),
        ("topic | json(true)", "'json' takes no arguments, got 1", 8),
        ("topic | round(1, 2)", "'round' expects 0 or 1 arguments, got 2", 8),
        ("topic | round(-1)", "'round' expects an integer literal from 0 to 15", 14),
        ("topic | round(16)", "'round' expects an integer literal from 0 to 15", 14),
        ("topic | round(1.5)", "'round' expects an integer literal from 0 to 15", 14),
        ("topic | round(qos)", "'round' expects an integer literal from 0 to 15", 14),
        ("topic | truncate", "'truncate' expects 1 argument, got 0", 8),
        ("topic | truncate(-1)", "'truncate' expects a non-negative integer literal", 17),
        ("topic | truncate('3')", "'truncate' expects a non-negative integer literal", 17),
        ("topic |", "expected a pipe name after '|', found the end of input", 7),
        ("topic | 3", "expected a pipe name after '|', found '3'", 8),
        ("topic | default(1", "expected ')' to close '(', found the end of input", 17),
    ])
    func pipeErrors(source: String, message: String, offset: Int) {
        let error = expressionError(source)
        #expect(error?.message == message)
        #expect(error?.offset == offset)
    }
}
