import Testing
@testable import PushBridge

/// Regressions found by fuzzing the config loader; each was a crash or a blow-up before its fix.
@Suite("Fuzz regressions: config")
struct RegressionsConfig {
    /// Found by the config fuzz test: 20 000 keys in one mapping took ~50 s, because each new
    /// key copied the mapping's pairs and seen-keys table (the frame was popped, changed,
    /// pushed back). Now linear; the parse below takes milliseconds, not minutes.
    @Test("a mapping with 20 000 keys and a list with 20 000 items parse in linear time")
    func longMappingsAndLists() throws {
        let keys = (0..<20_000).map { "k\($0): \($0)" }.joined(separator: "\n")
        guard case .success(let document) = YAMLParser.parse(keys + "\n"),
              case .mapping(let pairs, _)? = document.root else {
            Issue.record("the mapping did not parse")
            return
        }
        #expect(pairs.count == 20_000)
        let items = "[" + (0..<20_000).map(String.init).joined(separator: ", ") + "]"
        guard case .success(let list) = YAMLParser.parse(items), case .sequence(let nodes, _)? = list.root else {
            Issue.record("the list did not parse")
            return
        }
        #expect(nodes.count == 20_000)
        let duplicated = YAMLParser.parse("a: 1\nb: 2\na: 3\n")
        #expect((try? duplicated.get())?.problems.map(\.message) == ["duplicate key 'a' (first at line 1)"])
    }
}

/// Found by the config fuzz test: nesting 10 000 levels deep crashed the loader with a
/// stack overflow (signal 11) in the recursive walks over the tree. Nesting is now limited
/// to `YAMLParser.maximumDepth`, aliases included, and deeper input is one positioned error.
@Suite("Fuzz regressions: deep YAML")
struct RegressionsDeepYAML {
    static func messages(_ text: String) -> [String] {
        switch ConfigLoader.load(text: text, path: "deep.yml", environment: [:]) {
        case .success: return []
        case .failure(let errors): return errors.errors.map(\.description)
        }
    }

    @Test("10 000 levels of lists, mappings and block lists are one error")
    func deepNesting() {
        let depth = 10_000
        for text in ["routes: " + String(repeating: "[", count: depth) + String(repeating: "]", count: depth),
                     "routes: " + String(repeating: "{a: ", count: depth) + "x" + String(repeating: "}", count: depth),
                     "routes:\n" + String(repeating: "- ", count: depth) + "x"] {
            let messages = Self.messages(text + "\n")
            #expect(messages.count == 1)
            #expect(messages.first?.contains("nested too deeply (limit 100 levels") == true, "\(messages)")
        }
    }

    @Test("the limit counts the levels an alias brings")
    func aliasesCount() {
        var lines = ["a0: &a0 " + String(repeating: "[", count: 60) + String(repeating: "]", count: 60)]
        lines.append("a1: &a1 " + String(repeating: "[", count: 45) + "*a0" + String(repeating: "]", count: 45))
        let messages = Self.messages(lines.joined(separator: "\n") + "\nroutes: [{name: a, topic: b}]\n")
        #expect(messages.count == 1 && messages[0].contains("nested too deeply"), "\(messages)")
        let shallow = ["a0: &a0 [[[x]]]", "a1: &a1 [[*a0]]", "routes: [{name: a, topic: b}]"]
        #expect(Self.messages(shallow.joined(separator: "\n") + "\n").allSatisfy { !$0.contains("nested") })
    }

    @Test("99 levels (the limit with the root mapping) still parse")
    func atTheLimit() {
        let text = "a: " + String(repeating: "[", count: 99) + String(repeating: "]", count: 99) + "\n"
        #expect((try? YAMLParser.parse(text).get()) != nil)
        let over = "a: " + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "\n"
        #expect((try? YAMLParser.parse(over).get()) == nil)
    }
}

/// Found by the config fuzz test: an alias bomb ("billion laughs", 10 aliases of 10 aliases,
/// 9 levels) ran for minutes and grew without bound while the loader walked 10⁹ copied
/// nodes. The parser now counts nodes with aliases expanded and stops at
/// `YAMLParser.maximumNodes`.
@Suite("Fuzz regressions: alias bombs")
struct RegressionsAliasBomb {
    static func bomb(levels: Int) -> String {
        var lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
        for level in 1...levels {
            lines.append("a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]")
        }
        return lines.joined(separator: "\n") + "\nroutes: *a\(levels)\n"
    }

    @Test("billion laughs is one error, found before expanding it")
    func billionLaughs() {
        let before = ResidentMemory.current() ?? 0
        guard case .failure(let errors) = ConfigLoader.load(text: Self.bomb(levels: 9), path: "bomb.yml", environment: [:]) else {
            Issue.record("the alias bomb loaded")
            return
        }
        #expect(errors.errors.count == 1)
        #expect(errors.errors.first?.message.contains("aliases expanded (limit 100000 nodes)") == true, "\(errors)")
        let growth = (ResidentMemory.current() ?? 0) - before
        #expect(growth < 500_000_000, "RSS grew by \(growth / 1_000_000) MB")
    }

    @Test("the count includes the aliases: 10⁴ scalars are fine, 10⁵ are not")
    func limit() {
        // levels 3: 10 + 100 + 1 000 + 10 000 scalars plus lists, under 100 000 nodes.
        #expect((try? YAMLParser.parse(Self.bomb(levels: 3)).get()) != nil)
        #expect((try? YAMLParser.parse(Self.bomb(levels: 4)).get()) == nil)
    }
}

/// Found by the config fuzz test: a 2 MB unknown key, enum word or route name made the
/// "did you mean" suggestion build a 2 M × n edit-distance table per candidate (seconds and
/// hundreds of MB). Candidates whose length differs by more than the accepted distance
/// are now skipped; suggestions themselves are unchanged.
@Suite("Fuzz regressions: suggestions for huge words")
struct RegressionsHugeSuggestion {
    @Test("a 2 MB word gets the known keys, not a suggestion")
    func hugeWord() {
        let word = String(repeating: "x", count: 2_000_000)
        #expect(KeySuggestion.nearest(to: word, in: ConfigLoader.topLevelKeys) == nil)
        #expect(KeySuggestion.hint(for: word, in: ["json", "text"]) == "; known keys: json, text")
        let prefixed = "routes" + word
        #expect(KeySuggestion.nearest(to: prefixed, in: ConfigLoader.topLevelKeys) == nil)
    }

    @Test("near words are still suggested")
    func nearWords() {
        #expect(KeySuggestion.nearest(to: "rotues", in: ConfigLoader.topLevelKeys) == "routes")
        #expect(KeySuggestion.nearest(to: "mutable", in: ["mutable_content", "qos"]) == "mutable_content")
        #expect(KeySuggestion.nearest(to: "displayy", in: ConfigLoader.topLevelKeys) == "display")
        #expect(KeySuggestion.nearest(to: "ext", in: ConfigLoader.topLevelKeys) == nil)
    }
}
