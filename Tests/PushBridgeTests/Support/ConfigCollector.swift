import Foundation

/// Keeps a copy of a `bridge.yml` a test loaded, for the schema check of `make test`
/// (scripts/schema-check.py validates every one against docs/bridge.schema.json).
///
/// Only when `PUSHBRIDGE_TEST_CONFIGS` names a directory: `valid` configs (the loader
/// accepted them) go to `<dir>/valid/`, configs the loader must reject to `<dir>/invalid/`.
enum ConfigCollector {
    static let directory = ProcessInfo.processInfo.environment["PUSHBRIDGE_TEST_CONFIGS"]

    static func record(_ yaml: String, valid: Bool, name: String = "config") {
        guard let directory, !directory.isEmpty else { return }
        let dir = directory + (valid ? "/valid" : "/invalid")
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let safe = String(name.map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" ? $0 : "_" })
        try? yaml.write(toFile: "\(dir)/\(safe)-\(UUID().uuidString.prefix(8)).yml", atomically: true, encoding: .utf8)
    }
}
