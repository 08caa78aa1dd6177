/// A name an expression can refer to (docs/configuration.md, "Templates and expressions").
package enum Variable: String, CaseIterable, Sendable {
    case topic, levels, payload, raw, properties, route, qos, retain
    case pushType = "push_type"
    case priority, content, now, hour, weekday
    /// The display message (or withdraw) an output sends: only a webhook's `body` sees it; null elsewhere.
    case message
    /// A condition route's notification: `state`, `alert_id`, `raised_at`, `repeat`, `step`.
    case condition
    /// A route's `lookup:`: each name's newest payload kept of the topic its template renders
    /// for this message (JSON when it was JSON, else text); `null` when none is kept.
    case lookup
    /// A digest's summary (a route's `digest:`): `count`, `titles`, `keys`, `first_at`,
    /// `last_at` of the alerts it stands for; `null` elsewhere.
    case digest
}

/// What an expression is evaluated against: one value per `Variable`.
package protocol EvaluationContext {
    /// The current value of `variable`.
    func value(of variable: Variable) -> JSONValue
    /// `levels[position]`: the same as subscripting `value(of: .levels)`; a context can
    /// answer it without building the whole list.
    func levelsElement(_ position: JSONValue) -> JSONValue
    /// `variable.name`: the same as `value(of: variable)[name] ?? .null`; a context can
    /// read the member where the value is stored, without copying or building the value.
    func member(_ name: String, of variable: Variable) -> JSONValue
}

extension EvaluationContext {
    /// The member of `value(of: variable)`.
    package func member(_ name: String, of variable: Variable) -> JSONValue {
        value(of: variable)[name] ?? .null
    }

    /// Subscripts `value(of: .levels)`.
    package func levelsElement(_ position: JSONValue) -> JSONValue {
        Node.subscripted(value(of: .levels), by: position)
    }
}

/// A syntax error in an expression or template, with its position in the source.
package struct LanguageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, e.g. `expected ')' to close '('`.
    package var message: String
    /// UTF-8 byte offset of the error inside the full expression or template source.
    package var offset: Int

    package var description: String { message }
}

/// A compiled expression: a filter condition or the inside of a template hole.
///
/// Grammar and precedence are documented on the parser; in short, loosest first:
/// pipes `|`, `||`/`or`, `&&`/`and`, `==` `!=`, `<` `<=` `>` `>=` `in` `not in` `=~`,
/// `+` `-`, `*` `/`, unary `!`/`not`/`-`, then paths `.name` and `[index]`.
/// Pipes bind loosest: `payload.x + 1 | default(0)` pipes the sum.
///
/// Semantics in brief: different types are never equal nor ordered (int and double are
/// one type); `in` tests list elements, substrings and object keys; `=~` is true when
/// the pattern matches anywhere in a string (anchor with `^…$`); `+ - * /` on
/// unsupported types, division by zero and non-finite results give `null`. Pipes:
/// `default(x)` replaces `null` and `""`; `upper`, `lower` and `truncate(n)` (at most
/// `n` characters, no ellipsis) render non-strings first; `round(n)` rounds numbers
/// half away from zero (an integer when `n` is 0) and passes other values through;
/// `json` gives compact JSON text. `round` and `truncate` take integer literals.
package struct Expression: Sendable {
    /// The source text the expression was parsed from.
    package let source: String
    /// The variables the expression reads (useful for validation).
    let variables: Set<Variable>
    let node: Node

    /// Parses `source`; throws a positioned `LanguageError` on a syntax error.
    package static func parse(_ source: String) throws(LanguageError) -> Expression {
        var parser = try Parser(bytes: Array(source.utf8), start: 0, holeStart: nil)
        let node = try parser.parseExpression()
        var variables: Set<Variable> = []
        node.collectVariables(into: &variables)
        return Expression(source: source, variables: variables, node: node)
    }

    /// Evaluates the expression; never fails at run time (a missing path is `null`).
    func evaluate(in context: some EvaluationContext) -> JSONValue {
        node.evaluate(in: context)
    }

    /// Evaluates as `evaluate` does, but a path the value does not have (a missing key, an
    /// index past the end, a member of a text or number) makes the whole expression `nil`:
    /// unevaluable. `default(x)` still replaces a missing value. A condition's `active` uses it.
    func evaluateStrictly(in context: some EvaluationContext) -> JSONValue? {
        node.evaluateStrictly(in: context)
    }

    /// Evaluates and applies truthiness: `null`, `false`, `0`, `0.0`, `""`, `[]`, `{}` are false.
    func isTrue(in context: some EvaluationContext) -> Bool {
        Operators.isTruthy(node.evaluate(in: context))
    }
}

/// A compiled template: text with `{{ expr }}` holes, parsed once.
///
/// A literal `{{` is written `{{ "{{" }}`. A value renders as: `null` → empty, strings
/// as they are, numbers without a needless fraction (`42`), booleans as `true`/`false`,
/// arrays and objects as compact JSON.
/// Equal when the sources are: the parse of a source is always the same.
package struct Template: Sendable, Equatable {
    /// The source text.
    package let source: String
    /// The variables the holes read (useful for validation).
    let variables: Set<Variable>
    let segments: [TemplateSegment]
    /// The expression when the template is exactly one hole (whitespace around it allowed).
    let singleHole: Node?

    package static func == (a: Template, b: Template) -> Bool { a.source == b.source }

    /// Parses `source`; throws a positioned `LanguageError` on a syntax error.
    package static func parse(_ source: String) throws(LanguageError) -> Template {
        let segments = try TemplateParser.segments(of: source)
        var variables: Set<Variable> = []
        var holes: [Node] = []
        var onlyWhitespaceText = true
        for segment in segments {
            switch segment {
            case .hole(let node):
                holes.append(node)
                node.collectVariables(into: &variables)
            case .text(let text):
                if !text.utf8.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
                    onlyWhitespaceText = false
                }
            }
        }
        let single = holes.count == 1 && onlyWhitespaceText ? holes[0] : nil
        return Template(source: source, variables: variables, segments: segments, singleHole: single)
    }

    /// `true` when the template is `{{ payload }}` alone: its value is the payload itself.
    var isPayload: Bool {
        if case .variable(.payload)? = singleHole { return true }
        return false
    }

    /// `true` when the template contains at least one `{{ }}` hole.
    var hasHoles: Bool {
        segments.contains { if case .hole = $0 { return true } else { return false } }
    }

    /// Renders to text (`null` renders as an empty string).
    package func render(in context: some EvaluationContext) -> String {
        if segments.count == 1, case .text(let text) = segments[0] { return text }
        // The pieces are copied into one stack buffer and the text made from it once, not
        // grown piece by piece; past the buffer's end it goes on as a growing string.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: TextPieces.capacity) { buffer in
            var pieces = TextPieces(buffer)
            for segment in segments {
                switch segment {
                case .text(let text): pieces.append(text)
                case .hole(let node):
                    switch node.evaluate(in: context) {
                    case .null: break
                    case .string(let text): pieces.append(text)
                    case let value: pieces.append(ValueText.render(value))
                    }
                }
            }
            return pieces.text()
        }
    }

    /// The template's text pieces in order, `nil` for each hole: what is fixed whatever a
    /// message holds (a URL's scheme and host, a topic's literal levels).
    var literalPieces: [String?] {
        segments.map { if case .text(let text) = $0 { text } else { nil } }
    }

    /// Renders with each hole's text passed through `escape` (which may refuse a value by
    /// returning `nil`: the whole rendering is then `nil`). Literal text is kept as it is.
    func render(in context: some EvaluationContext, escapingHoles escape: (String) -> String?) -> String? {
        var out = ""
        for segment in segments {
            switch segment {
            case .text(let text): out += text
            case .hole(let node):
                let text: String
                switch node.evaluate(in: context) {
                case .null: text = ""
                case .string(let s): text = s
                case let value: text = ValueText.render(value)
                }
                guard let escaped = escape(text) else { return nil }
                out += escaped
            }
        }
        return out
    }

    /// The value: for a template that is exactly one hole (`"{{ payload }}"`, whitespace
    /// around it allowed) the expression's value itself, otherwise the rendered string.
    package func value(in context: some EvaluationContext) -> JSONValue {
        if let singleHole { return singleHole.evaluate(in: context) }
        return .string(render(in: context))
    }
}
