import Foundation
import Testing
@testable import PushBridge

/// The committed docs/bridge.schema.json and docs/configuration.md are what the key table
/// makes of them now (`make docs` writes both), and the schema holds exactly the table's keys.
@Suite struct ConfigSchemaTests {
    static let docs = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs")

    static func read(_ name: String) throws -> String {
        try String(contentsOf: docs.appendingPathComponent(name), encoding: .utf8)
    }

    @Test func committedSchemaIsWhatPushbridgeSchemaPrints() throws {
        #expect(try Self.read("bridge.schema.json") == ConfigSchema.text, "docs/bridge.schema.json is stale: run make docs")
    }

    @Test func configurationReferenceIsGeneratedFromTheTable() throws {
        let text = try Self.read("configuration.md")
        let begin = try #require(text.range(of: ConfigReference.markdownBegin), "no generated key reference")
        let end = try #require(text.range(of: ConfigReference.markdownEnd + "\n"))
        #expect(String(text[begin.lowerBound..<end.upperBound]) == ConfigReference.markdown,
                "docs/configuration.md's key reference is stale: run make docs")
    }

    /// The key paths a schema describes, walking properties, items and anyOf.
    static func paths(_ schema: JSONValue, prefix: String) -> Set<String> {
        guard case .object(let o) = schema else { return [] }
        var out: Set<String> = []
        if case .object(let properties)? = o["properties"] {
            for (name, child) in properties {
                let path = prefix.isEmpty ? name : prefix + "." + name
                out.insert(path)
                out.formUnion(paths(child, prefix: path))
            }
        }
        if let items = o["items"] { out.formUnion(paths(items, prefix: prefix + "[]")) }
        if case .array(let choices)? = o["anyOf"] { for c in choices { out.formUnion(paths(c, prefix: prefix)) } }
        return out
    }

    @Test func theSchemaHasExactlyTheTablesKeys() {
        let schema = ConfigSchema.document
        #expect(Self.paths(schema, prefix: "") == Set(ConfigReference.all.map(\.path)))
        #expect(schema["$schema"]?.stringValue == "https://json-schema.org/draft/2020-12/schema")
    }

    @Test func theReferenceHasAHeadingPerKey() throws {
        let text = try Self.read("configuration.md")
        for key in ConfigReference.all {
            #expect(text.contains("# `\(ConfigReference.plainPath(key.path))`\n"), "\(key.path)")
        }
    }

    @Test func numbersAndWordsAlsoTakeASubstitution() throws {
        let port = try #require(ConfigSchema.document["properties"]?["broker"]?["anyOf"])
        #expect(port.jsonText.contains(ConfigSchema.substitutionPattern.replacingOccurrences(of: "\\", with: "\\\\")))
        let retained = ConfigSchema.schema(for: try #require(ConfigReference.key("routes[].retained")))
        #expect(JSONValue.object(retained).jsonText.contains("\"pattern\""))
    }
}
