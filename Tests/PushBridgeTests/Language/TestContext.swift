@testable import PushBridge

/// A tiny evaluation context for language tests: a fixed value per variable, `null` otherwise.
struct TestContext: EvaluationContext {
    var values: [Variable: JSONValue]

    init(_ values: [Variable: JSONValue] = [:]) { self.values = values }

    func value(of variable: Variable) -> JSONValue { values[variable] ?? .null }

    /// A message-like context used by most tests.
    static let sample = TestContext([
        .topic: .string("home/front/door"),
        .levels: .array([.string("home"), .string("front"), .string("door")]),
        .payload: .object([
            "a": .object(["b": .int(7)]),
            "items": .array([.string("x"), .string("y"), .string("z")]),
            "key with space": .string("spaced"),
            "n": .int(5),
            "f": .double(2.5),
            "s": .string("Hello"),
            "empty": .string(""),
            "nothing": .null,
            "flag": .bool(true),
            "level": .string("debug"),
        ]),
        .raw: .string("{\"n\":5}"),
        .properties: .object(["x": .string("1"), "room": .string("hall")]),
        .route: .string("doorbell"),
        .qos: .int(1),
        .retain: .bool(false),
        .pushType: .string("alert"),
        .priority: .int(10),
        .content: .object(["title": .string("Ding"), "body": .string("Someone is at the door")]),
        .now: .int(1_700_000_000),
        .hour: .int(22),
        .weekday: .int(3),
        .message: .object(["title": .string("Ding")]),
        .condition: .object(["state": .string("raised"), "repeat": .int(0)]),
        .lookup: .object(["discovery": .object(["dev_cla": .string("gas")])]),
        .digest: .object(["count": .int(2), "titles": .array([.string("a"), .string("b")])]),
    ])
}

/// Parses and evaluates `source` against `context`.
func evaluate(_ source: String, _ context: TestContext = .sample) throws -> JSONValue {
    try Expression.parse(source).evaluate(in: context)
}

/// The error `Expression.parse(source)` throws, or `nil` when it parses.
func expressionError(_ source: String) -> LanguageError? {
    do {
        _ = try Expression.parse(source)
        return nil
    } catch {
        return error
    }
}

/// The error `Template.parse(source)` throws, or `nil` when it parses.
func templateError(_ source: String) -> LanguageError? {
    do {
        _ = try Template.parse(source)
        return nil
    } catch {
        return error
    }
}
