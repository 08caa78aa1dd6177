import Testing
@testable import PushBridge

/// Template and expression syntax errors are mapped from a byte offset to the YAML position.
///
/// A fake compiler fails at the first `@` in the source, so these tests do not depend on
/// the real Language parser.
@Suite struct ScalarPositionTests {
    private static let fake = LanguageCompiler(
        template: { source throws(LanguageError) in
            if let i = source.utf8.firstIndex(of: UInt8(ascii: "@")) {
                throw LanguageError(message: "unexpected '@'", offset: source.utf8.distance(from: source.utf8.startIndex, to: i))
            }
            return try Template.parse(source)
        },
        expression: { source throws(LanguageError) in
            if let i = source.utf8.firstIndex(of: UInt8(ascii: "@")) {
                throw LanguageError(message: "unexpected '@'", offset: source.utf8.distance(from: source.utf8.startIndex, to: i))
            }
            return try Expression.parse(source)
        })

    private func errors(_ yaml: String) -> [String] {
        switch ConfigLoader.load(text: yaml, path: "bridge.yml", environment: [:], compiler: Self.fake) {
        case .success: return []
        case .failure(let e): return e.errors.map(\.description)
        }
    }

    @Test func literalBlockScalar() {
        let yaml = """
        routes:
          - topic: a
            alert:
              body: |
                first line
                second {{ @ }} line

        """
        #expect(errors(yaml) == ["bridge.yml:6:19: error: invalid template in 'body': unexpected '@'"])
    }

    @Test func foldedBlockScalarOnItsFirstLine() {
        let yaml = "routes:\n  - topic: a\n    alert:\n      title: >-\n          x {{ @ }}\n"
        #expect(errors(yaml) == ["bridge.yml:5:16: error: invalid template in 'title': unexpected '@'"])
    }

    @Test func plainAndQuotedScalars() {
        #expect(errors("routes:\n  - topic: a\n    collapse_id: ab{{ @ }}\n")
                == ["bridge.yml:3:23: error: invalid template in 'collapse_id': unexpected '@'"])
        #expect(errors("routes:\n  - topic: a\n    collapse_id: \"ab{{ @ }}\"\n")
                == ["bridge.yml:3:24: error: invalid template in 'collapse_id': unexpected '@'"])
        #expect(errors("extension:\n  filters:\n    - suppress: 'x == @'\nroutes: [{topic: a}]\n")
                == ["bridge.yml:3:23: error: invalid expression in 'suppress': unexpected '@'"])
    }

    @Test func locateDirectly() {
        let source = "k: |\n    ab\n    cd\n"
        let positions = ScalarPosition(source: source)
        let scalar = YAMLScalar(value: "ab\ncd\n", style: .literal, mark: YAMLMark(line: 0, column: 3))
        #expect(positions.locate(offset: 0, in: scalar) == YAMLMark(line: 1, column: 4))
        #expect(positions.locate(offset: 4, in: scalar) == YAMLMark(line: 2, column: 5))
        let plain = YAMLScalar(value: "héllo", style: .plain, mark: YAMLMark(line: 3, column: 2))
        // Byte 3 is after "hé" (two characters): columns count characters, as libyaml's marks do.
        #expect(positions.locate(offset: 3, in: plain) == YAMLMark(line: 3, column: 4))
    }
}
