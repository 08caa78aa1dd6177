/// The template and expression compilers the loader uses; injectable for tests.
struct LanguageCompiler: Sendable {
    var template: @Sendable (String) throws(LanguageError) -> Template
    var expression: @Sendable (String) throws(LanguageError) -> Expression

    /// The real parsers of the Language folder.
    static let standard = LanguageCompiler(
        template: { source throws(LanguageError) in try Template.parse(source) },
        expression: { source throws(LanguageError) in try Expression.parse(source) }
    )
}
