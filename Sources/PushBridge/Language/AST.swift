/// A node of a parsed expression. Trees are at most `Parser.maximumDepth` high.
indirect enum Node: Sendable {
    case literal(JSONValue)
    case variable(Variable)
    /// A list literal with at least one non-constant element (constant lists fold to `literal`).
    case list([Node])
    /// `base.name`
    case member(Node, String)
    /// `base[index]`
    case index(Node, Node)
    /// `!x`, `not x`
    case not(Node)
    /// `-x`
    case negate(Node)
    /// `a && b`, `a and b` (short-circuit)
    case and(Node, Node)
    /// `a || b`, `a or b` (short-circuit)
    case or(Node, Node)
    case binary(BinaryOperator, Node, Node)
    /// `a =~ "literal pattern"`, compiled at parse time.
    case matchLiteral(Node, CompiledRegex)
    /// `value | pipe`
    case pipe(Node, Pipe)
}

/// The non-short-circuit binary operators.
enum BinaryOperator: Sendable {
    case equal, notEqual, less, lessEqual, greater, greaterEqual
    case contains  // `in` (the element is on the left)
    case notContains  // `not in`
    case match  // `=~` with a pattern computed at run time
    case add, subtract, multiply, divide
}

/// A pipe stage after `|`.
enum Pipe: Sendable {
    /// `default(x)`: `x` when the value is `null` or `""`.
    case defaultValue(Node)
    case upper
    case lower
    /// `round(n)`: `n` decimal places, half away from zero.
    case round(Int)
    /// `truncate(n)`: at most `n` characters.
    case truncate(Int)
    case json
    /// `fixed(n)`: a number (or a text that reads as one) as text with exactly `n` decimals.
    case fixed(Int)
    /// `number`: the number a text holds (white space around it ignored), else `null`.
    case number
    /// `trim`: the text without leading and trailing white space (newlines included).
    case trim
    /// `join(sep)`: a list's items rendered and joined with `sep`; anything else unchanged.
    case join(Node)
    /// `length`: items of a list, keys of an object, characters of a text; `null` is 0.
    case length
}

/// A regular expression compiled once at parse time and shared by every evaluation.
///
/// `@unchecked Sendable`: `Regex` is an immutable value whose only mutable state is the
/// lazily lowered matching program, which the standard library publishes with an atomic
/// compare-and-swap (`Regex.Program.loweredProgram`), so concurrent matching is safe. The
/// initializer also forces that lowering once, before the value is shared.
final class CompiledRegex: @unchecked Sendable {
    let regex: Regex<AnyRegexOutput>

    init(pattern: String) throws {
        regex = try Regex(pattern)
        _ = "".contains(regex)
    }

    /// `true` when the pattern matches anywhere in `text`.
    func matches(_ text: String) -> Bool {
        text.contains(regex)
    }
}

extension Node {
    /// The variables the expression reads.
    func collectVariables(into set: inout Set<Variable>) {
        switch self {
        case .literal: return
        case .variable(let variable): set.insert(variable)
        case .list(let elements): for element in elements { element.collectVariables(into: &set) }
        case .member(let base, _), .not(let base), .negate(let base), .matchLiteral(let base, _):
            base.collectVariables(into: &set)
        case .index(let left, let right), .and(let left, let right), .or(let left, let right),
             .binary(_, let left, let right):
            left.collectVariables(into: &set)
            right.collectVariables(into: &set)
        case .pipe(let base, let pipe):
            base.collectVariables(into: &set)
            if case .defaultValue(let fallback) = pipe { fallback.collectVariables(into: &set) }
            if case .join(let separator) = pipe { separator.collectVariables(into: &set) }
        }
    }
}
