import Foundation

/// The repository root, from this file's path.
let repositoryRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<4 { url.deleteLastPathComponent() }  // file, Support, PushBridgeTests, Tests
    return url.path
}()

/// The `pushbridge` binary `swift build --build-tests` made beside the tests (the test
/// executable's own folder first, so a build with another `--build-path`, such as
/// `make sanitize`'s, runs its own binary).
let pushbridgeBinary: String = {
    let beside = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "")
        .deletingLastPathComponent().appendingPathComponent("pushbridge").path
    let candidates = [beside, repositoryRoot + "/.build/debug/pushbridge",
                      repositoryRoot + "/.build/release/pushbridge"]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[0]
}()

/// This process's sanitizer options (set by `make sanitize`), for a child started with an
/// environment of its own: its reports then go where the run collects them.
let sanitizerEnvironment: [String: String] = ProcessInfo.processInfo.environment.filter {
    ["ASAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS"].contains($0.key)
}
