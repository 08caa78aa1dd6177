import Testing
@testable import PushBridge

@Suite struct YAMLParserTests {
    private func root(_ text: String) throws -> YAMLNode {
        let doc = try YAMLParser.parse(text).get()
        return try #require(doc.root)
    }

    @Test func scalarStylesAndMarks() throws {
        let text = "a: plain\nb: \"dq\"\nc: 'sq'\nd: |\n  lit\ne: >\n  fold\n"
        guard case .mapping(let pairs, let mark) = try root(text) else { Issue.record("not a mapping"); return }
        #expect(mark == YAMLMark(line: 0, column: 0))
        let styles: [YAMLScalarStyle] = [.plain, .doubleQuoted, .singleQuoted, .literal, .folded]
        let values = ["plain", "dq", "sq", "lit\n", "fold\n"]
        for (index, pair) in pairs.enumerated() {
            guard case .scalar(let s) = pair.value else { Issue.record("not a scalar"); continue }
            #expect(s.style == styles[index])
            #expect(s.value == values[index])
        }
        guard case .scalar(let b) = pairs[1].value else { return }
        #expect(b.mark == YAMLMark(line: 1, column: 3))
    }

    @Test func nestedSequencesAndMappings() throws {
        let node = try root("routes:\n  - topic: a/b\n    qos: 1\n  - [x, y]\n")
        guard case .mapping(let pairs, _) = node, case .sequence(let items, let m) = pairs[0].value else {
            Issue.record("shape"); return
        }
        #expect(m.line == 1)
        #expect(items.count == 2)
        guard case .mapping(let route, let rm) = items[0], case .sequence(let flow, _) = items[1] else {
            Issue.record("items"); return
        }
        #expect(rm == YAMLMark(line: 1, column: 4))
        #expect(route.count == 2)
        #expect(flow.count == 2)
    }

    @Test func syntaxErrorIsPositioned() {
        let result = YAMLParser.parse("a: b\nc: [1, 2\n")
        guard case .failure(let error) = result else { Issue.record("parsed"); return }
        #expect(error.message.contains("did not find expected"))
        #expect(error.mark != nil)
    }

    @Test func tabIndentationIsASyntaxError() {
        guard case .failure(let error) = YAMLParser.parse("a:\n\tb: 1\n") else { Issue.record("parsed"); return }
        #expect(error.mark?.line == 1)
    }

    @Test func duplicateKeysAreReported() throws {
        let doc = try YAMLParser.parse("a: 1\nb: 2\na: 3\n").get()
        #expect(doc.problems == [YAMLSyntaxError(message: "duplicate key 'a' (first at line 1)", mark: YAMLMark(line: 2, column: 0))])
    }

    @Test func aliasesCopyTheAnchoredNode() throws {
        let node = try root("base: &b {x: 1}\nother: *b\n")
        guard case .mapping(let pairs, _) = node else { return }
        guard case .mapping(let copied, _) = pairs[1].value else { Issue.record("alias not resolved"); return }
        #expect(copied.count == 1)
    }

    @Test func unknownAliasAndMergeKeysAreProblems() throws {
        // libyaml itself does not check aliases; the tree builder does.
        let merge = try YAMLParser.parse("a: &x {k: 1}\nb:\n  <<: *x\n").get()
        #expect(merge.problems.map(\.message) == ["YAML merge keys ('<<') are not supported"])
        let alias = try YAMLParser.parse("a: *nowhere\n").get()
        #expect(alias.problems == [YAMLSyntaxError(message: "unknown alias '*nowhere'", mark: YAMLMark(line: 0, column: 3))])
    }

    @Test func secondDocumentIsAProblem() throws {
        let doc = try YAMLParser.parse("a: 1\n---\nb: 2\n").get()
        #expect(doc.problems.map(\.message) == ["only one YAML document is allowed"])
    }

    @Test func emptyInputHasNoRoot() throws {
        #expect(try YAMLParser.parse("").get().root == nil)
        #expect(try YAMLParser.parse("# only a comment\n").get().root == nil)
    }

    @Test func strTagForcesAString() throws {
        guard case .mapping(let pairs, _) = try root("a: !!str 5\n"), case .scalar(let s) = pairs[0].value else { return }
        #expect(s.forcedString)
        #expect(s.style == .plain)
    }

    @Test func nullSpellings() {
        for text in ["", "~", "null", "Null", "NULL"] {
            #expect(YAMLScalar(value: text, style: .plain, mark: .init(line: 0, column: 0)).isNull)
        }
        #expect(!YAMLScalar(value: "null", style: .doubleQuoted, mark: .init(line: 0, column: 0)).isNull)
        #expect(!YAMLScalar(value: "nil", style: .plain, mark: .init(line: 0, column: 0)).isNull)
    }
}
