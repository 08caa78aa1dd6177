import Testing
@testable import PushBridge

/// Bounded random and hostile input for the expression and template language.
///
/// Parsing must succeed or throw a `LanguageError` positioned inside the source;
/// evaluation of whatever parses must never trap, whatever JSON the context holds.
@Suite("Fuzz: expression language")
struct LanguageFuzzTests {
    static let tokens = [
        "(", ")", "[", "]", ",", ".", "|", "||", "&&", "!", "==", "!=", "<", "<=", ">", ">=", "=~", "+", "-", "*",
        "/", " and ", " or ", "not ", " in ", " not in ", "true", "false", "null", "topic", "levels", "payload",
        "raw", "properties", "route", "qos", "retain", "push_type", "priority", "content", "now", "hour", "weekday", "message",
        "default(", "upper", "lower", "round(", "truncate(", "json", "0", "1", "-1", "2.5", "1e3", "9223372036854775807",
        "9223372036854775808", "1e309", "\"", "'", "\"a\"", "'b'", "\"\\u{1F600}\"", "\\", "\\u", "\\ud800", "\\u{110000}",
        "é", "🇫🇷", "\u{0}", " ", "{{", "}}", ".x", "[0]", "[-1]", "=", "&", "$", "\"(a*)*b\"", "\"[\"",
    ]

    /// Contexts holding every kind of value, including NaN and infinities.
    static func contexts(_ rng: inout SeededGenerator) -> [TestContext] {
        var contexts: [TestContext] = [TestContext(), TestContext.sample]
        for _ in 0..<3 {
            var values: [Variable: JSONValue] = [:]
            for variable in Variable.allCases {
                values[variable] = RandomJSON.value(depth: 3, keys: ["x", "a", "b", "who"], using: &rng)
            }
            contexts.append(TestContext(values))
        }
        return contexts
    }

    /// Parses `source` both ways and evaluates what parses in `contexts`.
    static func exercise(_ source: String, _ contexts: [TestContext], sourceLocation: SourceLocation = #_sourceLocation) {
        let length = source.utf8.count
        do throws(LanguageError) {
            let expression = try Expression.parse(source)
            for context in contexts {
                _ = expression.evaluate(in: context).jsonText
                _ = expression.isTrue(in: context)
            }
        } catch {
            #expect((0...length).contains(error.offset), "offset \(error.offset) of \(length): \(error.message)",
                    sourceLocation: sourceLocation)
            #expect(!error.message.isEmpty, sourceLocation: sourceLocation)
        }
        do throws(LanguageError) {
            let template = try Template.parse(source)
            for context in contexts {
                _ = template.render(in: context)
                _ = template.value(in: context)
            }
        } catch {
            #expect((0...length).contains(error.offset), "offset \(error.offset) of \(length): \(error.message)",
                    sourceLocation: sourceLocation)
        }
    }

    @Test("random token soup", arguments: [UInt64(1), 2, 3])
    func tokenSoup(seed: UInt64) async {
        var rng = SeededGenerator(seed: seed)
        let contexts = Self.contexts(&rng)
        var parsed = 0
        for _ in 0..<2_000 {
            await Task.yield()  // let other suites' tasks run (2-core machines)
            var source = ""
            for _ in 0..<Int.random(in: 1...12, using: &rng) { source += Self.tokens.randomElement(using: &rng)! }
            if (try? Expression.parse(source)) != nil { parsed += 1 }
            Self.exercise(source, contexts)
        }
        #expect(parsed > 50, "the soup should sometimes be a valid expression (\(parsed) were)")
    }

    @Test("mutated valid expressions and templates", arguments: [UInt64(4), 5])
    func mutated(seed: UInt64) async {
        var rng = SeededGenerator(seed: seed)
        let contexts = Self.contexts(&rng)
        let seeds = [
            "payload.who | default(\"Someone\") | upper", "payload.battery < 20 && (hour >= 22 || hour < 7)",
            "!(levels[2] =~ \"door|window|smoke\")", "\"x\" in [\"a\", payload.x, 1.5e3] or 1 / 0 == null",
            "Motion {{ levels[-1] }}: {{ payload | json | truncate(10) }} {{ payload.t | round(2) }} {{ \"{{\" }}",
            "{{ payload.a.b[0] * 2 + 1 - -3 }}/{{ properties['apns-id'] | lower }}", "'\\u{1F600}\\t\\u00e9' + raw",
        ]
        for _ in 0..<1_500 {
            await Task.yield()  // let other suites' tasks run (2-core machines)
            let base = Array(seeds.randomElement(using: &rng)!.utf8)
            let bytes = Mutations.mutate(base, tokens: Self.tokens, using: &rng)
            Self.exercise(String(decoding: bytes, as: UTF8.self), contexts)
        }
    }

    @Test("deep nesting of every kind is a clean error", arguments: [
        ("(", ")"), ("[", "]"), ("-", ""), ("!", ""), ("not ", ""), ("payload[", "]"), ("(payload | default(", "))"),
    ])
    func deepNesting(open: String, close: String) {
        let source = String(repeating: open, count: 100_000) + "1" + String(repeating: close, count: 100_000)
        #expect(throws: LanguageError.self) { try Expression.parse(source) }
        #expect(throws: LanguageError.self) { try Template.parse("{{ \(source) }}") }
    }

    @Test("long flat chains are a clean error or a shallow tree")
    func longChains() async throws {
        for separator in [" + ", " && ", " or ", " == ", " | upper", ".x", "[0]"] {
            await Task.yield()  // let other suites' tasks run (2-core machines)
            let source = "payload" + String(repeating: separator + (separator.hasPrefix(" |") || separator.hasPrefix(".") || separator.hasPrefix("[") ? "" : "1"), count: 50_000)
            #expect(throws: LanguageError.self, "\(separator)") { try Expression.parse(source) }
        }
        let list = "[" + Array(repeating: "payload", count: 100_000).joined(separator: ",") + "]"
        let expression = try? Expression.parse(list)
        #expect(expression?.evaluate(in: TestContext.sample) != nil)
        let holes = String(repeating: "{{ topic }}-", count: 20_000)
        #expect(try Template.parse(holes).render(in: TestContext.sample).utf8.count == 20_000 * 16)
    }

    @Test("huge numbers")
    func hugeNumbers() throws {
        let digits = String(repeating: "9", count: 5_000)
        for source in [digits, "-" + digits, "0." + digits, digits + ".5", "1e" + digits, "1e-" + digits, "1" + digits + "e-5000"] {
            Self.exercise(source, [TestContext.sample])
        }
        #expect(try Expression.parse(digits).evaluate(in: TestContext()) == .bigInt(digits))
        #expect(try Expression.parse("1e-\(digits)").evaluate(in: TestContext()) == .double(0))
        #expect(try Expression.parse("-9223372036854775808").evaluate(in: TestContext()) == .int(.min))
        #expect(try Expression.parse("-9223372036854775808 / -1").evaluate(in: TestContext()) == .double(9.223372036854775808e18))
        #expect(try Expression.parse("-(-9223372036854775808)").evaluate(in: TestContext()) == .bigInt("9223372036854775808"))
        #expect(try Expression.parse("9223372036854775807 * 9223372036854775807 * 1e300").evaluate(in: TestContext()) == .null)
    }

    @Test("invalid escapes and unicode are clean errors")
    func escapes() throws {
        let bad = ["\"\\x\"", "\"\\u\"", "\"\\u12\"", "\"\\u{}\"", "\"\\u{110000}\"", "\"\\u{123456789}\"", "\"\\ud800\"",
                   "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"\\ud800\\u\"", "\"abc", "'\\", "\"\\", "é", "🇫🇷", "\u{0}", "payload.é"]
        for source in bad {
            #expect(throws: LanguageError.self, "\(source)") { try Expression.parse(source) }
            Self.exercise(source, [TestContext.sample])
        }
        #expect(try Expression.parse("\"\\ud83d\\ude00\"").evaluate(in: TestContext()) == .string("😀"))
        #expect(try Expression.parse("'\\u{10FFFF}'").evaluate(in: TestContext()) == .string("\u{10FFFF}"))
    }

    @Test("every operator and pipe on every kind of value", arguments: [UInt64(6)])
    func operatorsOnAnything(seed: UInt64) async throws {
        var rng = SeededGenerator(seed: seed)
        let binary = ["==", "!=", "<", "<=", ">", ">=", "in", "not in", "=~", "+", "-", "*", "/", "&&", "||"]
        let pipes = ["default(payload)", "upper", "lower", "round", "round(2)", "round(15)", "truncate(0)", "truncate(3)", "json"]
        var expressions: [Expression] = []
        for op in binary { expressions.append(try Expression.parse("payload \(op) raw")) }
        for pipe in pipes { expressions.append(try Expression.parse("payload | \(pipe)")) }
        expressions += try ["-payload", "!payload", "payload[raw]", "payload.x", "[payload, raw][qos]", "payload[-1]"]
            .map { try Expression.parse($0) }
        for _ in 0..<600 {
            await Task.yield()  // let other suites' tasks run (2-core machines)
            let context = TestContext([
                .payload: RandomJSON.value(depth: 2, keys: ["x"], using: &rng),
                .raw: RandomJSON.value(depth: 2, keys: ["x"], using: &rng),
                .qos: RandomJSON.extremeNumbers.randomElement(using: &rng)!,
            ])
            for expression in expressions { _ = expression.evaluate(in: context) }
        }
    }
}
