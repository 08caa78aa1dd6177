import Foundation
import Testing
@testable import PushBridge

/// `pushbridge schema` and `pushbridge help config [KEY]` as a user runs them.
@Suite struct SchemaCommandTests {
    static func run(_ arguments: [String]) async throws -> ProcessResult {
        try await ManagedProcess.run(try PushbridgeBinary.located(), arguments)
    }

    @Test func schemaPrintsTheSchema() async throws {
        let r = try await Self.run(["schema"])
        #expect(r.status == 0 && r.stdout == ConfigSchema.text)
    }

    @Test func helpConfigPrintsOneKey() async throws {
        let r = try await Self.run(["help", "config", "extension.filters.changed"])
        #expect(r.status == 0)
        #expect(r.stdout.hasPrefix("extension.filters.changed\n  type:    mapping"))
        #expect(r.stdout.contains("keys: key, value, deadband, initial, max_keys"))
        #expect(r.stdout.contains("        - changed:"))
    }

    @Test func helpConfigListsEveryKey() async throws {
        let r = try await Self.run(["help", "config"])
        #expect(r.status == 0)
        for key in ConfigReference.all { #expect(r.stdout.contains("\n" + ConfigReference.plainPath(key.path) + " ")) }
    }

    @Test func anUnknownKeyGetsADidYouMeanAndExitCode2() async throws {
        let r = try await Self.run(["help", "config", "extension.filters.chnged"])
        #expect(r.status == 2 && r.stdout.isEmpty)
        #expect(r.stderr == "pushbridge: error: no key 'extension.filters.chnged' in bridge.yml; did you mean 'extension.filters.changed'?\n")
        let far = try await Self.run(["help", "config", "zzz"])
        #expect(far.status == 2 && far.stderr.contains("'pushbridge help config' lists every key"))
    }

    @Test func schemaTakesNoOptions() async throws {
        let r = try await Self.run(["schema", "-c", "x.yml"])
        #expect(r.status == 2 && r.stderr.contains("'-c' is not an option of 'schema'"))
    }
}
