/// A recursive-descent parser for the expression language (docs/configuration.md, "Templates and expressions").
///
/// Precedence, loosest first:
/// `|` pipes < `||`/`or` < `&&`/`and` < `==` `!=` < `<` `<=` `>` `>=` `in` `not in` `=~`
/// < `+` `-` < `*` `/` < unary `!`/`not`/`-` < postfix `.name` and `[index]`.
/// Pipes bind loosest, so `payload.x + 1 | default(0)` pipes the sum; parenthesize to
/// pipe a part: `(payload.x | default(0)) + 1`.
///
/// Nesting (parentheses, brackets, unary operators, pipe arguments) and the height
/// of the resulting tree are limited to `maximumDepth`, so hostile input is a clean
/// error rather than a stack overflow.
struct Parser {
    static let maximumDepth = 256

    /// A parsed subtree with its height.
    struct Parsed {
        var node: Node
        var height: Int
    }

    private(set) var lexer: Lexer
    private(set) var token: Token
    private var depth = 0
    /// Offset of the `{{` when parsing a template hole; `nil` for a bare expression.
    let holeStart: Int?

    init(bytes: [UInt8], start: Int, holeStart: Int?) throws(LanguageError) {
        lexer = Lexer(bytes: bytes, start: start)
        self.holeStart = holeStart
        token = Token(kind: .end, start: start, end: start)
        token = try lexer.next()
    }

    // MARK: Entry points

    /// Parses a whole bare expression: a pipeline followed by the end of input.
    mutating func parseExpression() throws(LanguageError) -> Node {
        let parsed = try parsePipeline()
        guard token.kind == .end else { throw unexpected("expected an operator or the end of the expression") }
        return parsed.node
    }

    /// Parses the inside of a hole up to its `}}`; returns the node and the offset after `}}`.
    mutating func parseHole() throws(LanguageError) -> (node: Node, end: Int) {
        let parsed = try parsePipeline()
        guard token.kind == .symbol(.closeHole) else { throw unexpected("expected '}}' to close '{{'") }
        return (parsed.node, token.end)
    }

    // MARK: Grammar

    mutating func parsePipeline() throws(LanguageError) -> Parsed {
        try enter()
        defer { depth -= 1 }
        var value = try parseBinary()
        while token.kind == .symbol(.pipe) {
            try advance()
            value = try parsePipe(after: value)
        }
        return value
    }

    /// The binary levels, loosest first: 0 `or`, 1 `and`, 2 equality, 3 comparison (its own
    /// parser: `not in`, literal regexes), 4 `+ -`, 5 `* /`; 6 is the unary level.
    private mutating func parseBinary(_ level: Int = 0) throws(LanguageError) -> Parsed {
        if level == 3 { return try parseComparison() }
        if level == 6 { return try parseUnary() }
        var left = try parseBinary(level + 1)
        while let combine = binaryOperator(at: level) {
            try advance()
            let right = try parseBinary(level + 1)
            left = try make(combine(left.node, right.node), left, right)
        }
        return left
    }

    /// What the current token makes of two operands at `level` (not 3), or `nil`.
    private func binaryOperator(at level: Int) -> ((Node, Node) -> Node)? {
        switch (level, token.kind) {
        case (0, .symbol(.or)), (0, .name("or")): return { .or($0, $1) }
        case (1, .symbol(.and)), (1, .name("and")): return { .and($0, $1) }
        case (2, .symbol(.equal)): return { .binary(.equal, $0, $1) }
        case (2, .symbol(.notEqual)): return { .binary(.notEqual, $0, $1) }
        case (4, .symbol(.plus)): return { .binary(.add, $0, $1) }
        case (4, .symbol(.minus)): return { .binary(.subtract, $0, $1) }
        case (5, .symbol(.star)): return { .binary(.multiply, $0, $1) }
        case (5, .symbol(.slash)): return { .binary(.divide, $0, $1) }
        default: return nil
        }
    }

    private mutating func parseComparison() throws(LanguageError) -> Parsed {
        var left = try parseBinary(4)
        while true {
            let op: BinaryOperator
            switch token.kind {
            case .symbol(.less): op = .less
            case .symbol(.lessEqual): op = .lessEqual
            case .symbol(.greater): op = .greater
            case .symbol(.greaterEqual): op = .greaterEqual
            case .symbol(.match): op = .match
            case .name("in"): op = .contains
            case .name("not"):
                var probe = lexer
                guard case .name("in") = try probe.next().kind else { return left }
                try advance()
                op = .notContains
            default: return left
            }
            try advance()
            let patternStart = token.start
            let right = try parseBinary(4)
            if op == .match, case .literal(.string(let pattern)) = right.node {
                let regex: CompiledRegex
                do {
                    regex = try CompiledRegex(pattern: pattern)
                } catch {
                    throw LanguageError(message: "invalid regular expression: \(error)", offset: patternStart)
                }
                left = try make(.matchLiteral(left.node, regex), left, right)
            } else {
                left = try make(.binary(op, left.node, right.node), left, right)
            }
        }
    }

    private mutating func parseUnary() throws(LanguageError) -> Parsed {
        let isNot = isSymbol(.not) || isName("not")
        guard isNot || isSymbol(.minus) else { return try parsePostfix(try parsePrimary()) }
        try enter()
        defer { depth -= 1 }
        try advance()
        if !isNot, case .number(let isInteger) = token.kind {
            // Fold `-literal` so that -9223372036854775808 stays an exact integer.
            let literal = Parsed(node: .literal(try numberValue(token, isInteger: isInteger, negative: true)), height: 1)
            try advance()
            return try parsePostfix(literal)
        }
        let operand = try parseUnary()
        return try make(isNot ? .not(operand.node) : .negate(operand.node), operand)
    }

    private mutating func parsePostfix(_ base: Parsed) throws(LanguageError) -> Parsed {
        var value = base
        while true {
            if isSymbol(.dot) {
                try advance()
                guard case .name(let name) = token.kind else { throw unexpected("expected a name after '.'") }
                try advance()
                value = try make(.member(value.node, name), value)
            } else if isSymbol(.openBracket) {
                try advance()
                let index = try parsePipeline()
                try expectClose(.closeBracket, opener: "[")
                value = try make(.index(value.node, index.node), value, index)
            } else {
                return value
            }
        }
    }

    private mutating func parsePrimary() throws(LanguageError) -> Parsed {
        let current = token
        switch current.kind {
        case .number(let isInteger):
            try advance()
            return Parsed(node: .literal(try numberValue(current, isInteger: isInteger, negative: false)), height: 1)
        case .string(let text):
            try advance()
            return Parsed(node: .literal(.string(text)), height: 1)
        case .name(let name):
            let node: Node
            switch name {
            case "true": node = .literal(.bool(true))
            case "false": node = .literal(.bool(false))
            case "null": node = .literal(.null)
            case "and", "or", "in", "not": throw unexpected("expected an expression")
            default:
                guard let variable = Variable(rawValue: name) else {
                    let known = Variable.allCases.map(\.rawValue).joined(separator: ", ")
                    throw LanguageError(message: "unknown name '\(name)'; known names: \(known)", offset: current.start)
                }
                node = .variable(variable)
            }
            try advance()
            return Parsed(node: node, height: 1)
        case .symbol(.openParen):
            try advance()
            let inner = try parsePipeline()
            try expectClose(.closeParen, opener: "(")
            return inner
        case .symbol(.openBracket):
            return try parseList()
        default:
            throw unexpected("expected an expression")
        }
    }

    private mutating func parseList() throws(LanguageError) -> Parsed {
        try advance()
        var elements: [Parsed] = []
        if !isSymbol(.closeBracket) {
            while true {
                elements.append(try parsePipeline())
                guard isSymbol(.comma) else { break }
                try advance()
            }
        }
        try expectClose(.closeBracket, opener: "[")
        var constants: [JSONValue] = []
        for element in elements {
            guard case .literal(let value) = element.node else {
                return try make(.list(elements.map(\.node)), elements)
            }
            constants.append(value)
        }
        return Parsed(node: .literal(.array(constants)), height: 1)
    }

    // MARK: Helpers

    mutating func advance() throws(LanguageError) {
        token = try lexer.next()
    }

    func isSymbol(_ symbol: Symbol) -> Bool { token.kind == .symbol(symbol) }

    func isName(_ name: String) -> Bool { token.kind == .name(name) }

    private mutating func enter() throws(LanguageError) {
        depth += 1
        if depth > Parser.maximumDepth {
            throw LanguageError(message: "expression nested too deeply (limit \(Parser.maximumDepth))", offset: token.start)
        }
    }

    func make(_ node: Node, _ children: Parsed...) throws(LanguageError) -> Parsed {
        try make(node, children)
    }

    func make(_ node: Node, _ children: [Parsed]) throws(LanguageError) -> Parsed {
        let height = 1 + children.reduce(0) { max($0, $1.height) }
        if height > Parser.maximumDepth {
            throw LanguageError(message: "expression nested too deeply (limit \(Parser.maximumDepth))", offset: token.start)
        }
        return Parsed(node: node, height: height)
    }

    mutating func expectClose(_ symbol: Symbol, opener: String) throws(LanguageError) {
        guard isSymbol(symbol) else { throw unexpected("expected '\(symbol.rawValue)' to close '\(opener)'") }
        try advance()
    }

    /// The value of a number token; integers beyond Int64 stay exact (`bigInt`).
    private func numberValue(_ token: Token, isInteger: Bool, negative: Bool) throws(LanguageError) -> JSONValue {
        var text = negative ? "-" : ""
        text += String(decoding: lexer.bytes[token.start..<token.end], as: UTF8.self)
        if isInteger, let exact = Int64(text) { return .int(exact) }
        if isInteger, let canonical = JSONValue.canonicalIntegerText(Substring(text)) { return .bigInt(canonical) }
        guard let double = Double(text), double.isFinite else {
            throw LanguageError(message: "number out of range", offset: token.start)
        }
        return .double(double)
    }
}
