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
