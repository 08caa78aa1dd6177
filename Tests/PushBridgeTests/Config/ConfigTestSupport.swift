import Foundation
import Testing
@testable import PushBridge

/// Loads `yaml` as `bridge.yml` and returns the printed errors (empty when it loads).
func configErrors(_ yaml: String, env: [String: String] = [:]) -> [String] {
    switch ConfigLoader.load(text: yaml, path: "bridge.yml", environment: env) {
    case .success: return []
    case .failure(let errors): return errors.errors.map(\.description)
    }
}

/// Loads `yaml` and requires success, recording the errors otherwise.
func loadConfig(_ yaml: String, env: [String: String] = [:], path: String = "bridge.yml") throws -> BridgeConfig {
    switch ConfigLoader.load(text: yaml, path: path, environment: env) {
    case .success(let config): return config
    case .failure(let errors):
        Issue.record("unexpected errors:\n\(errors)")
        throw errors
    }
}

/// A fresh temporary directory for one test.
func makeTempDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "pushbridge-config-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}
