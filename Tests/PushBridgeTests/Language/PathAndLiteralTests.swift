import Testing
@testable import PushBridge

@Suite("Language paths, literals and names")
struct PathAndLiteralTests {
    @Test("every variable is readable by its name")
    func variables() throws {
        for variable in Variable.allCases {
            let expression = try Expression.parse(variable.rawValue)
            #expect(expression.evaluate(in: TestContext.sample) == TestContext.sample.value(of: variable))
            #expect(expression.evaluate(in: TestContext.sample) != .null)
            #expect(expression.variables == [variable])
        }
    }

    @Test("paths", arguments: [
        ("payload.a.b", JSONValue.int(7)), ("payload.items[0]", .string("x")), ("payload.items[2]", .string("z")),
        ("payload.items[3]", .null), ("payload.items[-1]", .string("z")), ("payload.items[-3]", .string("x")),
        ("payload.items[-4]", .null), ("payload.items[1.0]", .string("y")), ("payload.items[0.5]", .null),
        ("payload.items['0']", .null), ("payload['key with space']", .string("spaced")),
        ("payload[\"a\"][\"b\"]", .int(7)), ("payload['a'].b", .int(7)), ("levels[1]", .string("front")),
        ("levels[0 + 2]", .string("door")), ("levels[-1]", .string("door")), ("levels[-2]", .string("front")),
        ("levels[-3]", .string("home")), ("levels[-4]", .null), ("levels[0 - 1]", .string("door")),
        ("properties.x", .string("1")), ("content.title", .string("Ding")),
        ("payload.missing", .null), ("payload.missing.deeper[3]", .null), ("payload.n.x", .null),
        ("payload.s[0]", .null), ("topic.length", .null), ("payload[0]", .null), ("payload.items.x", .null),
        ("payload.nothing", .null), ("payload[payload.level]", .null), ("[10, 20, 30][1]", .int(20)),
        ("(payload.a).b", .int(7)), ("payload . a . b", .int(7)), ("payload.items[levels[9]]", .null),
    ])
    func paths(source: String, expected: JSONValue) throws {
        #expect(try evaluate(source) == expected)
    }

    @Test("keywords are ordinary member names after a dot")
    func keywordMembers() throws {
        let context = TestContext([.payload: .object(["and": .int(1), "true": .int(2), "in": .int(3), "not": .int(4)])])
        #expect(try evaluate("payload.and + payload.true + payload.in + payload.not", context) == .int(10))
    }

    @Test("literals", arguments: [
        ("42", JSONValue.int(42)), ("0", .int(0)), ("-7", .int(-7)), ("1.5", .double(1.5)), ("2e3", .double(2000)),
        ("2.5E-1", .double(0.25)), ("1e+2", .double(100)), ("12345678901234567890", .bigInt("12345678901234567890")),
        ("1234567890123456789", .int(1_234_567_890_123_456_789)), ("true", .bool(true)), ("false", .bool(false)),
        ("null", .null), ("'single'", .string("single")), ("\"double\"", .string("double")),
        ("'it\\'s'", .string("it's")), ("\"say \\\"hi\\\"\"", .string("say \"hi\"")), ("'a\\\\b'", .string("a\\b")),
        ("'a\\nb\\tc\\rd'", .string("a\nb\tc\rd")), ("'\\u00e9'", .string("é")), ("'\\u{1F600}'", .string("😀")),
        ("'\\uD83D\\uDE00'", .string("😀")), ("'\\u{41}'", .string("A")), ("'\"'", .string("\"")), ("\"'\"", .string("'")),
        ("'a/b\\/c'", .string("a/b/c")), ("'ünïcødé ✓'", .string("ünïcødé ✓")), ("[]", .array([])),
        ("[1, 'a', null, [true]]", .array([.int(1), .string("a"), .null, .array([.bool(true)])])),
        ("[payload.n, payload.s]", .array([.int(5), .string("Hello")])), ("[-1, -2.5]", .array([.int(-1), .double(-2.5)])),
        ("  ( 1 )  ", .int(1)), ("\n1\t", .int(1)),
    ])
    func literals(source: String, expected: JSONValue) throws {
        #expect(try evaluate(source) == expected)
    }

    @Test("unknown bare names are parse errors listing the known names")
    func unknownNames() {
        let error = expressionError("payload.a == foo")
        #expect(error?.offset == 13)
        #expect(error?.message == "unknown name 'foo'; known names: topic, levels, payload, raw, properties, route, "
            + "qos, retain, push_type, priority, content, now, hour, weekday, message, condition, lookup, digest")
        #expect(expressionError("pushType")?.message.hasPrefix("unknown name 'pushType'") == true)
        #expect(expressionError("Payload")?.offset == 0)
        #expect(expressionError("push_type") == nil)
    }

    @Test("variables collects every name used")
    func variablesSet() throws {
        #expect(try Expression.parse("payload.x + qos | default(topic)").variables == [.payload, .qos, .topic])
        #expect(try Expression.parse("[levels[hour], now] =~ 'x' || !retain").variables == [.levels, .hour, .now, .retain])
        #expect(try Expression.parse("1 + 2").variables.isEmpty)
        #expect(try Template.parse("{{ topic }}/{{ content.title | upper }} {{ weekday }}").variables
            == [.topic, .content, .weekday])
        #expect(try Template.parse("plain").variables.isEmpty)
    }

    @Test("source is kept")
    func sourceKept() throws {
        #expect(try Expression.parse(" payload.a ").source == " payload.a ")
        #expect(try Template.parse("x {{ topic }}").source == "x {{ topic }}")
    }
}
