import Testing
@testable import PushBridge

@Suite("Language operators")
struct OperatorTests {
    @Test("equality across types", arguments: [
        ("1 == 1", true), ("1 == 1.0", true), ("1.5 == 1.5", true), ("1 == 2", false),
        ("'a' == 'a'", true), ("'a' == \"a\"", true), ("'a' == 'b'", false),
        ("1 == '1'", false), ("'1' != 1", true), ("null == null", true), ("null == false", false),
        ("0 == false", false), ("'' == null", false), ("true == true", true), ("true != false", true),
        ("[1, 2] == [1, 2]", true), ("[1, 2] == [1.0, 2.0]", true), ("[1, 2] == [2, 1]", false),
        ("[1] == [1, 1]", false), ("payload.a == payload.a", true), ("payload.a != payload.items", true),
        ("payload.nothing == null", true), ("payload.missing == null", true),
        ("9223372036854775807 == 9223372036854775808.0", false),
        ("9999999999999999999 == 9999999999999999999", true), ("9999999999999999999 == 10000000000000000000", false),
        ("9999999999999999999 == 1e19", false), ("10000000000000000000 == 1e19", true),
        ("9999999999999999999 == 9223372036854775807", false), ("9999999999999999999 == '9999999999999999999'", false),
        ("123456789012345678901234567890 == 123456789012345678901234567890", true),
        ("9007199254740993 == 9007199254740992.0", false), ("9007199254740992 == 9007199254740992.0", true),
    ])
    func equality(source: String, expected: Bool) throws {
        #expect(try evaluate(source) == .bool(expected))
    }

    @Test("ordering", arguments: [
        ("1 < 2", true), ("2 < 1", false), ("1 <= 1", true), ("1 >= 1.0", true), ("1 > 0.5", true),
        ("0.5 < 1", true), ("2.5 <= 2", false), ("-1 < 0", true), ("'a' < 'b'", true), ("'b' > 'a'", true),
        ("'a' < 'ab'", true), ("'B' < 'a'", true), ("'é' > 'z'", true), ("'abc' >= 'abc'", true),
        // different types are never ordered
        ("1 < '2'", false), ("1 > '0'", false), ("1 <= '1'", false), ("1 >= '1'", false),
        ("null < 1", false), ("null >= null", false), ("true > false", false), ("[1] < [2]", false),
        ("9223372036854775807 < 9223372036854775808.0", true), ("-9223372036854775808 <= -9223372036854775808.0", true),
        ("9999999999999999999 > 9999999999999999998", true), ("9999999999999999999 < 1e19", true),
        ("-9999999999999999999 < -9999999999999999998", true), ("-9999999999999999999 < 9223372036854775807", true),
        ("9999999999999999999 > 9223372036854775807", true), ("-9999999999999999999 < -1e19", false),
        ("99999999999999999999 > 1e19", true), ("10000000000000000000 >= 1e19", true),
        ("10000000000000000000 > 1e19", false), ("9999999999999999999 < 9999999999999999999.5", true),
        ("3 > 2.9999", true), ("-3 < -2.5", true), ("-2 > -2.5", true),
    ])
    func ordering(source: String, expected: Bool) throws {
        #expect(try evaluate(source) == .bool(expected))
    }

    @Test("in: list element, substring, object key", arguments: [
        ("1 in [1, 2]", true), ("1.0 in [1, 2]", true), ("3 in [1, 2]", false), ("'1' in [1, 2]", false),
        ("'ell' in 'Hello'", true), ("'xyz' in 'Hello'", false), ("'' in 'abc'", true),
        ("'b' in payload.a", true), ("'c' in payload.a", false), ("'y' in payload.items", true),
        ("1 in 'a1'", false), ("1 in payload.a", false), ("null in null", false), ("'a' in 5", false),
        ("'q' not in ['a', 'b']", true), ("'a' not in ['a', 'b']", false), ("not 'a' in ['a']", false),
        ("payload.level in ['debug', 'trace']", true),
    ])
    func membership(source: String, expected: Bool) throws {
        #expect(try evaluate(source) == .bool(expected))
    }

    @Test("regex match =~", arguments: [
        ("topic =~ '^home/'", true), ("topic =~ 'door$'", true), ("topic =~ '^door'", false),
        ("topic =~ 'fr.nt'", true), ("payload.n =~ '5'", false), ("'abc' =~ payload.missing", false),
        ("'abc' =~ 'b' + 'c'", true), ("'abc' =~ '(' + ''", false), ("'a.c' =~ '\\\\.'", true),
        ("'abc' =~ '\\\\.'", false),
    ])
    func regex(source: String, expected: Bool) throws {
        #expect(try evaluate(source) == .bool(expected))
    }

    @Test("arithmetic", arguments: [
        ("1 + 2", JSONValue.int(3)), ("1 + 2.5", .double(3.5)), ("0.1 + 0.2", .double(0.1 + 0.2)),
        ("'a' + 'b'", .string("ab")), ("[1] + [2, 3]", .array([.int(1), .int(2), .int(3)])),
        ("'a' + 1", .null), ("1 + '1'", .null), ("null + 1", .null), ("[1] + 1", .null), ("true + true", .null),
        ("5 - 7", .int(-2)), ("5 - 0.5", .double(4.5)), ("'a' - 'a'", .null),
        ("6 * 7", .int(42)), ("2 * 1.5", .double(3.0)), ("'a' * 3", .null),
        ("6 / 3", .int(2)), ("7 / 2", .double(3.5)), ("-7 / 2", .double(-3.5)), ("1 / 0", .null),
        ("1.0 / 0", .null), ("0 / 0", .null), ("1 / 0.0", .null), ("7.5 / 2.5", .double(3.0)), ("'a' / 1", .null),
        ("9223372036854775807 + 1", .double(9_223_372_036_854_775_808.0)),
        ("-9223372036854775808 - 1", .double(-9_223_372_036_854_775_808.0)),
        ("9223372036854775807 * 2", .double(18_446_744_073_709_551_616.0)),
        ("-9223372036854775808 / -1", .double(9_223_372_036_854_775_808.0)),
        ("-9223372036854775808", .int(.min)), ("9223372036854775807", .int(.max)),
        ("- payload.n", .int(-5)), ("-payload.f", .double(-2.5)), ("-'a'", .null), ("--3", .int(3)),
        ("-(-9223372036854775808)", .bigInt("9223372036854775808")),
        ("9999999999999999999", .bigInt("9999999999999999999")), ("-9999999999999999999", .bigInt("-9999999999999999999")),
        ("-(9999999999999999999)", .bigInt("-9999999999999999999")),
        ("9999999999999999999 + 1", .double(1e19)),
        ("1e308 * 10", .null), ("2 + 3 * 4", .int(14)), ("(2 + 3) * 4", .int(20)), ("10 - 4 - 3", .int(3)),
        ("24 / 4 / 2", .int(3)), ("1 - -1", .int(2)),
    ])
    func arithmetic(source: String, expected: JSONValue) throws {
        #expect(try evaluate(source) == expected)
    }

    @Test("logic returns booleans from truthiness", arguments: [
        ("1 && 'x'", true), ("1 && ''", false), ("0 || 'x'", true), ("0 || ''", false),
        ("null or false", false), ("[] or payload.a", true), ("[] or payload.missing", false), ("1 and 2 and 3", true), ("!0", true), ("!1", false),
        ("not ''", true), ("not 'a'", false), ("!!payload.s", true), ("not payload.missing", true),
        ("true || false && false", true), ("(true || false) && false", false),
        ("1 == 1 && 2 == 2", true), ("1 == 2 || 'a' < 'b'", true), ("!true == false", true),
    ])
    func logic(source: String, expected: Bool) throws {
        #expect(try evaluate(source) == .bool(expected))
    }

    @Test("short-circuit does not need the right side")
    func shortCircuit() throws {
        #expect(try evaluate("false && payload.x.y.z") == .bool(false))
        #expect(try evaluate("true || payload.x.y.z") == .bool(true))
    }

    @Test("truthiness", arguments: [
        (JSONValue.null, false), (.bool(false), false), (.bool(true), true), (.int(0), false), (.int(-1), true),
        (.double(0.0), false), (.double(-0.0), false), (.double(0.1), true), (.string(""), false),
        (.string("0"), true), (.string("false"), true), (.array([]), false), (.array([.null]), true),
        (.object([:]), false), (.object(["a": .null]), true),
    ])
    func truthiness(value: JSONValue, expected: Bool) throws {
        let expression = try Expression.parse("payload")
        #expect(expression.isTrue(in: TestContext([.payload: value])) == expected)
        #expect(try Expression.parse("!payload").evaluate(in: TestContext([.payload: value])) == .bool(!expected))
    }
}
