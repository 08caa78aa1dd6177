import Foundation

/// Writes `text` as `name` into a fresh directory under the system's temp directory and
/// returns the file's path: a `bridge.yml`, an extension script, a password file…
///
/// The one way tests write files for a bridge; each call gets a directory of its own, so
/// tests running in parallel never share one.
@discardableResult
func writeTempFile(_ text: String, name: String = "bridge.yml") throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pushbridge-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let file = dir.appendingPathComponent(name).path
    try text.write(toFile: file, atomically: true, encoding: .utf8)
    return file
}
