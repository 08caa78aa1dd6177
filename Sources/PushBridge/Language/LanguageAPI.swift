// PLACEHOLDER API — the Language helper replaces this file with the real lexer,
// parser and evaluator, keeping these public signatures.

/// A name an expression can refer to (SPEC section 4, "Templates and expressions").
public enum Variable: String, CaseIterable, Sendable {
    case topic, levels, payload, raw, properties, route, qos, retain
    case pushType = "push_type"
    case priority, content, now, hour, weekday
}

/// What an expression is evaluated against: one value per `Variable`.
public protocol EvaluationContext {
    /// The current value of `variable`.
    func value(of variable: Variable) -> JSONValue
}

/// A syntax error in an expression or template, with its position in the source.
public struct LanguageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, e.g. `expected ')' after arguments`.
    public var message: String
    /// UTF-8 byte offset of the error inside the expression or template source.
    public var offset: Int
    public init(message: String, offset: Int) { self.message = message; self.offset = offset }
    public var description: String { message }
}

/// A compiled expression: a filter condition or the inside of a template hole.
public struct Expression: Sendable {
    /// The source text the expression was parsed from.
    public let source: String
    /// Parses `source`; throws a positioned `LanguageError` on a syntax error.
    public static func parse(_ source: String) throws(LanguageError) -> Expression {
        Expression(source: source)
    }
    /// Evaluates the expression; never fails at run time (SPEC: nothing is an error at run time).
    public func evaluate(in context: some EvaluationContext) -> JSONValue { .null }
    /// Evaluates and applies truthiness: `null`, `false`, `0`, `""`, `[]`, `{}` are false.
    public func isTrue(in context: some EvaluationContext) -> Bool { false }
}

/// A compiled template: text with `{{ expr }}` holes.
public struct Template: Sendable {
    /// The source text.
    public let source: String
    /// Parses `source`; throws a positioned `LanguageError` on a syntax error.
    public static func parse(_ source: String) throws(LanguageError) -> Template {
        Template(source: source)
    }
    /// `true` when the template contains at least one `{{ }}` hole.
    public var hasHoles: Bool { source.contains("{{") }
    /// Renders to text (`null` renders as an empty string).
    public func render(in context: some EvaluationContext) -> String { source }
    /// The value: for a template that is exactly one hole (`"{{ payload }}"`) the
    /// expression's value itself, otherwise the rendered string.
    public func value(in context: some EvaluationContext) -> JSONValue { .string(source) }
}
