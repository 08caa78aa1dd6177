/// The parser's error at the current token.
extension Parser {
    /// An error at the current token: `"<expected>, found '<token>'"`. Running out of
    /// input inside a template hole reports the unclosed `{{` instead.
    func unexpected(_ expected: String) -> LanguageError {
        if token.kind == .end, let holeStart {
            return LanguageError(message: "expected '}}' to close '{{'", offset: holeStart)
        }
        return LanguageError(message: "\(expected), found \(describe(token))", offset: token.start)
    }

    fileprivate func describe(_ token: Token) -> String {
        if token.kind == .end { return "the end of input" }
        var text = String(decoding: lexer.bytes[token.start..<token.end], as: UTF8.self)
        if text.count > 20 { text = String(text.prefix(20)) + "…" }
        return "'\(text)'"
    }
}
