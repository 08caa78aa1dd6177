import Testing
@testable import PushBridge

@Suite("Language syntax errors")
struct LanguageErrorTests {
    @Test("expression errors: message and UTF-8 offset", arguments: [
        ("(1 + 2", "expected ')' to close '(', found the end of input", 6),
        ("[1, 2", "expected ']' to close '[', found the end of input", 5),
        ("payload[0", "expected ']' to close '[', found the end of input", 9),
        ("(qos]", "expected ')' to close '(', found ']'", 4),
        ("1 +", "expected an expression, found the end of input", 3),
        ("", "expected an expression, found the end of input", 0),
        ("   ", "expected an expression, found the end of input", 3),
        (")", "expected an expression, found ')'", 0),
        ("[1,]", "expected an expression, found ']'", 3),
        ("qos and", "expected an expression, found the end of input", 7),
        ("in [1]", "expected an expression, found 'in'", 0),
        ("\"abc", "unterminated string", 0),
        ("qos + 'abc\\'", "unterminated string", 6),
        ("'a\\q'", "unknown escape '\\q'", 2),
        ("'\\u{110000}'", "invalid unicode escape: not a unicode scalar", 1),
        ("'\\uD800'", "invalid unicode escape: not a unicode scalar", 1),
        ("'\\uD800\\u0041'", "invalid unicode escape: unpaired surrogate", 1),
        ("'\\uZZ'", "invalid unicode escape: expected 4 hex digits", 1),
        ("'\\u{}'", "invalid unicode escape: expected '\\u{' hex digits '}'", 1),
        ("'\\u{123456789}'", "invalid unicode escape: expected '\\u{' hex digits '}'", 1),
        ("payload.", "expected a name after '.', found the end of input", 8),
        ("payload.3", "expected a name after '.', found '3'", 8),
        ("1 2", "expected an operator or the end of the expression, found '2'", 2),
        ("topic(1)", "expected an operator or the end of the expression, found '('", 5),
        ("qos }}", "expected an operator or the end of the expression, found '}}'", 4),
        ("qos not 1", "expected an operator or the end of the expression, found 'not'", 4),
        ("#", "unexpected character '#'", 0),
        ("'é' + ü", "unexpected character 'ü'", 7),
        ("qos = 1", "unexpected '='; did you mean '=='?", 4),
        ("qos & 1", "unexpected '&'; did you mean '&&'?", 4),
        ("qos { 1", "unexpected character '{'", 4),
        ("1e999", "number out of range", 0),
        ("-1e999", "number out of range", 1),
        ("payload.s 'a very long string literal that gets cut'",
         "expected an operator or the end of the expression, found ''a very long string …'", 10),
    ])
    func expressionErrors(source: String, message: String, offset: Int) {
        let error = expressionError(source)
        #expect(error == LanguageError(message: message, offset: offset))
    }

    @Test("a bad literal regex is a parse error at the pattern")
    func badRegex() {
        let error = expressionError("topic =~ '('")
        #expect(error?.offset == 9)
        #expect(error?.message.hasPrefix("invalid regular expression: ") == true)
        #expect(expressionError("topic =~ '[a-'")?.offset == 9)
        #expect(expressionError("topic =~ '(a|b)+'") == nil)
    }

    @Test("template errors: offsets are positions in the whole template", arguments: [
        ("a {{ b", "expected '}}' to close '{{'", 2),
        ("{{ (qos", "expected '}}' to close '{{'", 0),
        ("{{ qos }", "expected '}}' to close '{{'", 0),
        ("{{ qos }} {{ topic", "expected '}}' to close '{{'", 10),
        ("x {{ }}", "empty '{{ }}': expected an expression", 2),
        ("{{}}", "empty '{{ }}': expected an expression", 0),
        ("{{ topic topic }}", "expected '}}' to close '{{', found 'topic'", 9),
        ("héllo {{ foo }}", "unknown name 'foo'; known names: topic, levels, payload, raw, properties, route, qos, "
            + "retain, push_type, priority, content, now, hour, weekday, message, condition, lookup, digest", 10),
        ("{{ topic }} and {{ (qos }}", "expected ')' to close '(', found '}}'", 24),
        ("{{ \"abc }}", "unterminated string", 3),
        ("ok {{ qos }} {{ payload.x | nope }}",
         "unknown pipe 'nope'; known pipes: default, upper, lower, round, truncate, json, fixed, number, trim, join, length", 28),
        ("{{ qos + }}", "expected an expression, found '}}'", 9),
        ("{{ qos + (1 }}", "expected ')' to close '(', found '}}'", 12),
        ("✓ {{ topic =~ '(' + x }}", "unknown name 'x'; known names: topic, levels, payload, raw, properties, route, "
            + "qos, retain, push_type, priority, content, now, hour, weekday, message, condition, lookup, digest", 22),
    ])
    func templateErrors(source: String, message: String, offset: Int) {
        #expect(templateError(source) == LanguageError(message: message, offset: offset))
    }

    @Test("a bad literal regex inside a template points into the template")
    func badRegexInTemplate() {
        #expect(templateError("abc {{ topic =~ '(' }}")?.offset == 16)
    }

    @Test("LanguageError describes itself by its message")
    func description() {
        #expect(LanguageError(message: "m", offset: 3).description == "m")
    }
}

@Suite("Language nesting limits")
struct LanguageNestingTests {
    private let limitMessage = "expression nested too deeply (limit 256)"

    @Test("100 000 nested '(' or '[' is a clean error", arguments: ["(", "[", "payload[", "!", "-", "not ", "[1, "])
    func deepNesting(opener: String) {
        let source = String(repeating: opener, count: 100_000) + "1"
        #expect(expressionError(source)?.message == limitMessage)
        #expect(templateError("{{ " + source + " }}")?.message == limitMessage)
    }

    @Test("nesting just under the limit parses and evaluates")
    func underTheLimit() throws {
        let depth = 255
        let parens = String(repeating: "(", count: depth) + "1" + String(repeating: ")", count: depth)
        #expect(try evaluate(parens) == .int(1))
        let lists = String(repeating: "[", count: depth - 1) + "7" + String(repeating: "]", count: depth - 1)
        var expected = JSONValue.int(7)
        for _ in 0..<(depth - 1) { expected = .array([expected]) }
        #expect(try evaluate(lists) == expected)
        #expect(expressionError("(" + parens + ")")?.message == limitMessage)
        #expect(expressionError("(" + parens + ")")?.offset == 256)
    }

    @Test("long operator chains are limited by tree height, not a stack overflow")
    func longChains() throws {
        #expect(try evaluate(Array(repeating: "1", count: 200).joined(separator: " + ")) == .int(200))
        let long = Array(repeating: "1", count: 100_000).joined(separator: " + ")
        #expect(expressionError(long)?.message == limitMessage)
        let path = "payload" + String(repeating: ".a", count: 100_000)
        #expect(expressionError(path)?.message == limitMessage)
        let pipes = "qos" + String(repeating: " | json", count: 100_000)
        #expect(expressionError(pipes)?.message == limitMessage)
    }
}
