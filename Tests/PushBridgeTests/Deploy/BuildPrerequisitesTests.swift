import Foundation
import Testing

/// What a fresh machine needs for a build with no `warning:` line (issue: SwiftPM resolves
/// each system library's `pkgConfig:` name with pkg-config, and without pkg-config it prints
/// "failed to retrieve search paths with pkg-config" plus one hint per library, twice).
@Suite("Build prerequisites") struct BuildPrerequisitesTests {
    /// The `pkgConfig:` names in Package.swift.
    static func pkgConfigNames() throws -> [String] {
        let manifest = try String(contentsOfFile: repositoryRoot + "/Package.swift", encoding: .utf8)
        let regex = try Regex(#"pkgConfig:\s*"([^"]+)""#)
        return manifest.matches(of: regex).compactMap { $0.output[1].substring.map(String.init) }
    }

    @Test func everyPkgConfigNameResolves() async throws {
        let names = try Self.pkgConfigNames()
        #expect(Set(names) == ["libmosquitto", "yaml-0.1", "sqlite3", "libssl"], "\(names)")
        for name in names {
            let r = try await ManagedProcess.run("/usr/bin/env", ["pkg-config", "--exists", "--print-errors", name])
            #expect(r.status == 0 && r.exitedNormally, "pkg-config cannot find \(name): \(r.stderr)")
        }
    }

    @Test(arguments: ["Makefile", ".ci/run"])
    func pkgConfigIsInstalledWithTheRest(file: String) throws {
        let text = try String(contentsOfFile: repositoryRoot + "/" + file, encoding: .utf8)
        let installs = text.split(separator: "\n").filter { $0.contains("APT_PACKAGES :=") || $0.contains("apt-get install") }
        #expect(installs.contains { $0.split(separator: " ").contains("pkgconf") }, "\(file): \(installs)")
    }
}
