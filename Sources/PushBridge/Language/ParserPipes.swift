/// Parsing of pipe stages (`| name` or `| name(arguments)`) and their arity rules.
extension Parser {
    /// Parses the pipe after `|` and applies it to `value`.
    mutating func parsePipe(after value: Parsed) throws(LanguageError) -> Parsed {
        guard case .name(let name) = token.kind else { throw unexpected("expected a pipe name after '|'") }
        let nameStart = token.start
        try advance()
        var arguments: [Parsed] = []
        var argumentStarts: [Int] = []
        if isSymbol(.openParen) {
            try advance()
            if !isSymbol(.closeParen) {
                while true {
                    argumentStarts.append(token.start)
                    arguments.append(try parsePipeline())
                    guard isSymbol(.comma) else { break }
                    try advance()
                }
            }
            try expectClose(.closeParen, opener: "(")
        }
        func arity(_ allowed: ClosedRange<Int>, _ text: String) throws(LanguageError) {
            guard allowed.contains(arguments.count) else {
                throw LanguageError(message: "'\(name)' \(text), got \(arguments.count)", offset: nameStart)
            }
        }
        func integer(_ range: ClosedRange<Int64>, _ text: String) throws(LanguageError) -> Int {
            guard case .literal(.int(let n)) = arguments[0].node, range.contains(n) else {
                throw LanguageError(message: "'\(name)' expects \(text)", offset: argumentStarts[0])
            }
            return Int(n)
        }
        /// A pipe that takes no arguments.
        func bare(_ pipe: Pipe) throws(LanguageError) -> Pipe {
            try arity(0...0, "takes no arguments")
            return pipe
        }
        let pipe: Pipe
        switch name {
        case "default":
            try arity(1...1, "expects 1 argument")
            pipe = .defaultValue(arguments[0].node)
        case "upper": pipe = try bare(.upper)
        case "lower": pipe = try bare(.lower)
        case "json": pipe = try bare(.json)
        case "number": pipe = try bare(.number)
        case "trim": pipe = try bare(.trim)
        case "length": pipe = try bare(.length)
        case "join":
            try arity(1...1, "expects 1 argument (the separator)")
            pipe = .join(arguments[0].node)
        case "fixed":
            try arity(1...1, "expects 1 argument")
            pipe = .fixed(try integer(0...15, "an integer literal from 0 to 15"))
        case "round":
            try arity(0...1, "expects 0 or 1 arguments")
            pipe = .round(arguments.isEmpty ? 0 : try integer(0...15, "an integer literal from 0 to 15"))
        case "truncate":
            try arity(1...1, "expects 1 argument")
            pipe = .truncate(try integer(0...Int64(Int32.max), "a non-negative integer literal"))
        default:
            throw LanguageError(
                message: "unknown pipe '\(name)'; known pipes: default, upper, lower, round, truncate, json, fixed, number, trim, join, length",
                offset: nameStart)
        }
        return try make(.pipe(value.node, pipe), [value] + arguments)
    }
}
