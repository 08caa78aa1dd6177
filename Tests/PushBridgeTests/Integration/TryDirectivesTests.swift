import Foundation
import Testing
@testable import PushBridge

/// `pushbridge try --retain`, `--at` and `--samples` with `#@` directives (docs/cli.md, "pushbridge try").
@Suite("Integration: try directives")
struct TryDirectivesTests {
    static let config = """
        entitlements: [com.apple.developer.usernotifications.filtering]
        routes:
          - name: door
            topic: home/+/door
            input: text
            alert: {title: "{{ levels[1] }}", body: "{{ raw | trim }}"}
        extension:
          filters:
            - name: mode
              suppress: '"${MODE:-home}" == "vacation"'
            - name: once
              changed: {key: "{{ topic }}", value: "{{ raw | trim }}"}
            - name: night
              quiet_hours: {from: "22:00", to: "07:00"}
        """

    static func run(_ args: [String], environment: [String: String]? = nil) async throws -> ProcessResult {
        try await ManagedProcess.run(PushbridgeBinary.path, args, environment: environment)
    }

    @Test("--retain makes the message stored state; --at places it in the night")
    func retainAndAt() async throws {
        let file = try writeTempFile(Self.config)
        let retained = try await Self.run(["try", "-c", file, "-t", "home/front/door", "-m", "on", "--retain", "--json"])
        #expect(retained.status == 0, "\(retained.stderr)")
        let r = try JSONValue.parse(retained.stdout)
        #expect(r["outcome"] == .string("not_displayed"))
        #expect(r["rule"]?.stringValue?.hasPrefix("retained state") == true)
        let night = try JSONValue.parse(try await Self.run(["try", "-c", file, "-t", "home/front/door", "-m", "on",
                                                            "--at", "23:15", "--json"]).stdout)
        #expect(night["outcome"] == .string("suppressed") && night["decided_by"] == .string("night"))
        let day = try JSONValue.parse(try await Self.run(["try", "-c", file, "-t", "home/front/door", "-m", "on",
                                                          "--at", "2026-03-04T12:00", "--json"]).stdout)
        #expect(day["outcome"] == .string("delivered"))
        let bad = try await Self.run(["try", "-c", file, "-t", "home/front/door", "-m", "on", "--at", "25:00"])
        #expect(bad.status == 2 && bad.stderr.contains("--at needs HH:MM"))
    }

    @Test("--samples: one pipeline, #@ retain teaches, #@ at moves the clock, #@ env reloads keeping memory")
    func samples() async throws {
        let file = try writeTempFile(Self.config)
        let samples = try writeTempFile("""
            #@ at 12:00
            #@ retain
            home/front/door\ton
            home/front/door\ton
            home/front/door\toff
            #@ at 23:30
            home/front/door\ton
            #@ at 12:05
            #@ env MODE=home
            home/front/door\ton
            home/back/door\ton
            #@ env MODE=vacation
            home/side/door\ton
            """, name: "samples.tsv")
        let r = try await Self.run(["try", "-c", file, "--samples", samples, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = try r.stdout.split(separator: "\n").map { try JSONValue.parse(String($0)) }
        let outcomes = lines.map { [$0["line"]?.jsonText ?? "", $0["outcome"]?.stringValue ?? "", $0["decided_by"]?.stringValue ?? ""] }
        #expect(outcomes == [
            ["3", "not_displayed", ""],       // retained: teaches "on"
            ["4", "suppressed", "once"],      // the live repeat of the stored state
            ["5", "delivered", ""],           // a change
            ["7", "suppressed", "night"],     // a change, in the night (changed recorded it)
            ["10", "suppressed", "once"],     // reloaded with MODE=home: the memory survived
            ["11", "delivered", ""],
            ["13", "suppressed", "mode"],     // reloaded with MODE=vacation
        ], "\(r.stdout)")
        #expect(lines[0]["retain"] == .bool(true))
        let table = try await Self.run(["try", "-c", file, "--samples", samples])
        #expect(table.stdout.contains("home/front/door (retained)"), "\(table.stdout)")

        let broken = try writeTempFile("#@ at noon\nhome/x/door\ton\n", name: "broken.tsv")
        let e = try await Self.run(["try", "-c", file, "--samples", broken])
        #expect(e.status == 2 && e.stderr.contains("broken.tsv:1: error: '#@ at' needs HH:MM"), "\(e.stderr)")
    }
}
