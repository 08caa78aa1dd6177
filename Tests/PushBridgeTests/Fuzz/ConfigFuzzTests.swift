import Foundation
import Testing
@testable import PushBridge

/// Bounded random and hostile input for `ConfigLoader.load(text:path:environment:)`.
///
/// Every input must give a config or positioned errors carrying the path, never a trap,
/// and hostile structure (deep nesting, alias bombs, huge scalars) must stay cheap.
@Suite("Fuzz: config loader")
struct ConfigFuzzTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The repository's own valid config files: the mutation seeds.
    static func seeds() throws -> [String] {
        let paths = ["bridge.yml", "examples/zigbee2mqtt/bridge.yml", "examples/homeassistant/bridge.yml",
                     "examples/frigate/bridge.yml", "examples/tasmota-shelly/bridge.yml",
                     "examples/owntracks/bridge.yml", "examples/esphome/bridge.yml"]
        return try paths.map { try String(contentsOf: root.appendingPathComponent($0), encoding: .utf8) }
    }

    static let environment = ["MQTT_HOST": "broker", "EMPTY": "", "HOME_MODE": "away"]

    /// YAML syntax and config words that random insertions draw from.
    static let yamlTokens = [
        "&a ", "*a", "<<: *a", "!!str ", "!!int ", "!custom ", "---\n", "...\n", "- ", ": ", "? ", "{", "}", "[", "]",
        "|\n", ">-\n", "\"", "'", "#", "${", "$${", "${EMPTY:-x}", "${NOPE}", ":-", "\n", "\t", "  ", "\r\n", "%YAML 1.1\n",
        "\\u0000", "\u{0}", "\u{FEFF}", "\u{1F600}", "routes:", "extension:", "filters:", "topic: ", "name: ",
        "{{ payload }}", "{{", "}}", "+/#", "#/+", "suppress: ", "set:", "dedupe:", "rate_limit:", "quiet_hours:",
        "input: apns", "push_type: none", "qos: 3", "9999999999999999999999", "-0", "1e999", "0x10", "~", "null",
    ]

    /// Loads `text`; checks the result's shape and returns the error messages.
    @discardableResult
    static func load(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> [String] {
        switch ConfigLoader.load(text: text, path: "fuzz/bridge.yml", environment: environment) {
        case .success(let config):
            #expect(!config.routes.isEmpty, "a loaded config has routes", sourceLocation: sourceLocation)
            return []
        case .failure(let errors):
            #expect(!errors.errors.isEmpty, sourceLocation: sourceLocation)
            for error in errors.errors {
                #expect(error.path == "fuzz/bridge.yml", sourceLocation: sourceLocation)
                if let line = error.line { #expect(line >= 1, "\(error)", sourceLocation: sourceLocation) }
                if let column = error.column { #expect(column >= 1, "\(error)", sourceLocation: sourceLocation) }
            }
            return errors.errors.map(\.message)
        }
    }

    @Test("the seeds themselves load")
    func seedsLoad() throws {
        for seed in try Self.seeds() {
            #expect(Self.load(seed) == [])
        }
    }

    @Test("mutated config files (byte flips, erasures, duplications, YAML syntax insertions)",
          arguments: [UInt64(1), 2, 3, 4])
    func mutatedFiles(seed: UInt64) async throws {
        var rng = SeededGenerator(seed: seed)
        let seeds = try Self.seeds().map { Array($0.utf8) }
        for _ in 0..<150 {
            await Task.yield()  // let other suites' tasks run (2-core machines)
            let base = seeds.randomElement(using: &rng)!
            let bytes = Mutations.mutate(base, tokens: Self.yamlTokens, maxSteps: 6, using: &rng)
            Self.load(String(decoding: bytes, as: UTF8.self))
        }
    }

    @Test("every truncation of bridge.yml")
    func truncations() async throws {
        let bytes = Array(try Self.seeds()[0].utf8)
        for end in stride(from: 0, through: bytes.count, by: 7) {
            await Task.yield()  // let other suites' tasks run (2-core machines)
            Self.load(String(decoding: bytes[..<end], as: UTF8.self))
        }
    }

    @Test("invalid UTF-8 and NUL bytes, through the file reader and as text")
    func invalidBytes() async throws {
        var rng = SeededGenerator(seed: 77)
        let base = Array(try Self.seeds()[0].utf8)
        let directory = NSTemporaryDirectory() + "pushbridge-fuzz-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let odd: [[UInt8]] = [[0x00], [0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82],
                              [0xEF, 0xBB, 0xBF], [0x1B], [0x7F], [0x85], [0xC2, 0x85], [0xE2, 0x80, 0xA8]]
        for round in 0..<40 {
            await Task.yield()  // let other suites' tasks run (2-core machines)
            var bytes = base
            for _ in 0..<Int.random(in: 1...5, using: &rng) {
                bytes.insert(contentsOf: odd.randomElement(using: &rng)!, at: Int.random(in: 0...bytes.count, using: &rng))
            }
            let path = directory + "/bridge-\(round).yml"
            #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
            switch ConfigLoader.load(path: path, environment: Self.environment) {
            case .success(let config): #expect(!config.routes.isEmpty)
            case .failure(let errors): #expect(errors.errors.allSatisfy { $0.path == path })
            }
            Self.load(String(decoding: bytes, as: UTF8.self))
        }
        #expect(!Self.load("routes:\n  - name: a\u{0}b\n    topic: a/b\n").isEmpty)
    }

    static let big = String(repeating: "x", count: 2_000_000)

    @Test("a 2 MB route name and a 200 000-level topic")
    func hugeNameAndTopic() async {
        await Task.yield()
        let topic = String(repeating: "a/", count: 200_000) + "b"
        Self.load("routes:\n  - name: \(Self.big)\n    topic: \(topic)\n")
    }

    @Test("a 2 MB template")
    func hugeTemplate() async {
        await Task.yield()
        Self.load("routes:\n  - name: n\n    topic: t\n    alert:\n      body: \"\(Self.big){{ payload }}\"\n")
    }

    @Test("a 2 MB unknown key, word and route reference (no quadratic suggestion)")
    func hugeKey() async {
        Self.load("\(Self.big): 1\nroutes: []\n")
        await Task.yield()
        #expect(Self.load("? \(Self.big)\n: 1\nroutes: [{name: a, topic: b}]\n").count == 1)
        await Task.yield()
        #expect(Self.load("routes: [{name: a, topic: b, input: \(Self.big)}]\n").count == 1)
        let filter = "extension: {filters: [{name: f, routes: [\(Self.big)], suppress: 'true'}]}\n"
        #expect(Self.load("routes: [{name: a, topic: b}]\n" + filter).count == 1)
    }

    @Test("100 000-digit numbers and variable names")
    func hugeNumbers() {
        Self.load("routes:\n  - name: n\n    topic: t\n    priority: \(String(repeating: "9", count: 100_000))\n")
        Self.load("routes:\n  - name: n\n    topic: t\n    expiration: \(String(repeating: "9", count: 100_000))d\n")
        Self.load("routes:\n  - name: n\n    topic: t\n    collapse_id: \"${\(String(repeating: "A", count: 100_000))}\"\n")
    }

    @Test("2 000 routes and 20 000 keys")
    func manyEntries() async {
        let manyRoutes = (0..<2_000).map { "  - {name: r\($0), topic: \"t/\($0)/#\"}" }.joined(separator: "\n")
        #expect(Self.load("routes:\n\(manyRoutes)\n") == [])
        await Task.yield()
        let manyKeys = (0..<20_000).map { "k\($0): \($0)" }.joined(separator: "\n")
        Self.load(manyKeys + "\nroutes: [{name: a, topic: b}]\n")
    }

    @Test("a template nested 50 000 parentheses deep")
    func deepTemplate() {
        let template = String(repeating: "(", count: 50_000) + "payload" + String(repeating: ")", count: 50_000)
        Self.load("routes:\n  - name: n\n    topic: t\n    alert:\n      body: \"{{ \(template) }}\"\n")
    }

    @Test("nesting 10 000 levels deep is an error, not a stack overflow")
    func deepNesting() async {
        let depth = 10_000
        let flowLists = "routes: " + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "\n"
        #expect(!Self.load(flowLists).isEmpty)
        let flowMaps = "routes: " + String(repeating: "{a: ", count: depth) + "x" + String(repeating: "}", count: depth) + "\n"
        #expect(!Self.load(flowMaps).isEmpty)
        let blockLists = "routes:\n" + String(repeating: "- ", count: depth) + "x\n"
        #expect(!Self.load(blockLists).isEmpty)
        let unclosed = "routes: " + String(repeating: "[", count: depth) + "\n"
        #expect(!Self.load(unclosed).isEmpty)
    }

    @Test("an alias bomb (billion laughs) is refused without expanding it")
    func billionLaughs() {
        var lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
        for level in 1...9 {
            let refs = Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ")
            lines.append("a\(level): &a\(level) [\(refs)]")
        }
        lines.append("routes: *a9")
        let before = ResidentMemory.current() ?? 0
        let messages = Self.load(lines.joined(separator: "\n") + "\n")
        let growth = (ResidentMemory.current() ?? 0) - before
        #expect(messages.contains { $0.contains("alias") }, "\(messages.prefix(3))")
        #expect(growth < 500_000_000, "RSS grew by \(growth) bytes")
    }

    @Test("aliases of a modest size still work")
    func modestAliases() {
        let text = """
            defaults: &alert {title: "T", body: "{{ payload }}"}
            routes:
              - {name: a, topic: a/#, alert: *alert}
              - {name: b, topic: b/#, alert: *alert}

            """
        // `defaults` is not a known section: the only error, and the aliases resolved.
        #expect(Self.load(text).count == 1)
    }

    @Test("random YAML token soup", arguments: [UInt64(11), 12])
    func tokenSoup(seed: UInt64) async {
        var rng = SeededGenerator(seed: seed)
        for _ in 0..<300 {
            await Task.yield()  // let other suites' tasks run (2-core machines)
            let bytes = Mutations.soup(length: Int.random(in: 0...300, using: &rng), alphabet: Self.yamlTokens, using: &rng)
            Self.load(String(decoding: bytes, as: UTF8.self))
        }
    }
}
