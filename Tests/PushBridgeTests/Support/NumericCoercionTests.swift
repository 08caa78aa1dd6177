import Testing
@testable import PushBridge

/// The one numeric coercion (`Support/JSONNumbers.swift`): which texts hold a number and
/// which number, and how JSON values read as integers and doubles. The `number` and
/// `fixed(n)` pipes, the `changed` filter's comparison, the extension answers, config
/// numbers and the stats snapshots all read numbers through it.
@Suite("Support: numeric coercion")
struct NumericCoercionTests {
    @Test("texts that hold a number", arguments: [
        ("0", JSONValue.int(0)), ("42", .int(42)), ("+1", .int(1)), ("-1", .int(-1)), ("007", .int(7)),
        ("-0", .int(0)), ("+0", .int(0)),
        // white space and newlines around the number are ignored
        (" 42", .int(42)), ("42 ", .int(42)), (" 242.10\n", .double(242.1)), ("\t-3\r\n", .int(-3)),
        // fractions and exponents are doubles, even when integral
        ("1.5", .double(1.5)), ("5.", .double(5)), (".5", .double(0.5)), ("-.5", .double(-0.5)), ("15.00", .double(15)),
        ("1e3", .double(1000)), ("1E3", .double(1000)), ("2.5e-3", .double(0.0025)), ("1e+2", .double(100)),
        ("-1.5E+3", .double(-1500)), ("1e-400", .double(0)),
        // integers stay exact at any length: within Int64 an int, beyond it canonical digits
        ("9223372036854775807", .int(.max)), ("-9223372036854775808", .int(.min)),
        ("9223372036854775808", .bigInt("9223372036854775808")), ("-00009223372036854775809", .bigInt("-9223372036854775809")),
        (String(repeating: "9", count: 400), .bigInt(String(repeating: "9", count: 400))),
    ])
    func numberTexts(text: String, expected: JSONValue) {
        #expect(JSONValue(numberText: text) == expected, "\(text.debugDescription)")
        #expect(JSONValue(numberText: Substring(text)) == expected)
    }

    @Test("texts that hold no number", arguments: [
        "", " ", "\n", "+", "-", ".", "+.", "e3", ".e3", "1e", "1e+", "1.5.2", "1..2", "--1", "+-1", "1-",
        "0x10", "0X1F", "0b1", "0o7", "1_000", "1,000", "1 000", "1 e3", "½", "١٢", "１２",
        "inf", "-inf", "+inf", "infinity", "Infinity", "nan", "NaN", "-nan", ".inf", ".nan",
        "1e400", "-1e400", String(repeating: "9", count: 400) + ".5", "12abc", "abc12", "true", "null", "\"1\"",
    ])
    func noNumberTexts(text: String) {
        #expect(JSONValue(numberText: text) == nil, "\(text.debugDescription)")
    }

    @Test("a very long text is read without trouble: digits exact, a long decimal rounded")
    func longTexts() {
        let digits = String(repeating: "1", count: 100_000)
        #expect(JSONValue(numberText: digits) == .bigInt(digits))
        #expect(JSONValue(numberText: "0." + digits) == .double(0.1111111111111111))
        #expect(JSONValue(numberText: digits + "x") == nil)
        #expect(JSONValue(numberText: String(repeating: " ", count: 10_000) + "7" + String(repeating: "\n", count: 10_000)) == .int(7))
    }

    @Test("exact integers: ints, and integral doubles within Int64")
    func exactIntegers() {
        #expect(JSONValue.int(3).exactInteger == 3)
        #expect(JSONValue.double(3.0).exactInteger == 3)
        #expect(JSONValue.double(-0.0).exactInteger == 0)
        #expect(JSONValue.double(1e15).exactInteger == 1_000_000_000_000_000)
        #expect(JSONValue.double(1e16).exactInteger == 10_000_000_000_000_000)
        #expect(JSONValue.double(3.5).exactInteger == nil)
        #expect(JSONValue.double(1e19).exactInteger == nil)
        #expect(JSONValue.double(.nan).exactInteger == nil)
        #expect(JSONValue.bigInt("9223372036854775808").exactInteger == nil)
        #expect(JSONValue.string("3").exactInteger == nil)
        #expect(JSONValue.bool(true).exactInteger == nil)
    }

    @Test("doubles: numberValue takes finite ints and doubles; arithmeticValue any number")
    func doubles() {
        #expect(JSONValue.int(2).numberValue == 2 && JSONValue.double(0.25).numberValue == 0.25)
        #expect(JSONValue.double(.infinity).numberValue == nil && JSONValue.double(.nan).numberValue == nil)
        #expect(JSONValue.bigInt("9223372036854775808").numberValue == nil)
        #expect(JSONValue.string("2").numberValue == nil && JSONValue.null.numberValue == nil)
        #expect(JSONValue.int(2).arithmeticValue == 2 && JSONValue.double(-0.5).arithmeticValue == -0.5)
        #expect(JSONValue.bigInt("9223372036854775808").arithmeticValue == 9.223372036854775808e18)
        #expect(JSONValue.bigInt("-" + String(repeating: "9", count: 400)).arithmeticValue == -.infinity)
        #expect(JSONValue.string("2").arithmeticValue == nil && JSONValue.array([]).arithmeticValue == nil)
    }

    /// Unquoted config numbers (`deadband`, `sound.volume`) follow the same rule: decimals
    /// in every form, no hex (Swift's `Double("0x1p-1")` took it before issue 28), inf or nan.
    @Test("config numbers read by the same rule", arguments: [
        ("0.5", true), (".5", true), ("5e-1", true), ("+0.5", true), ("1", true), ("0", true),
        ("0x1p-1", false), ("0x0", false), ("nan", false), ("inf", false), ("\"0.5\"", false), ("-0.5", false),
    ])
    func configNumbers(text: String, accepted: Bool) {
        let volume = configErrors("routes: [{topic: a, alert: {sound: {critical: true, volume: \(text)}}}]\n")
        #expect(volume.isEmpty == accepted, "volume: \(text) → \(volume)")
        let deadband = configErrors("routes: [{topic: a/#}]\nextension:\n  filters:\n    - changed: {key: k, value: v, deadband: \(text)}\n")
        #expect(deadband.isEmpty == accepted, "deadband: \(text) → \(deadband)")
    }
}
