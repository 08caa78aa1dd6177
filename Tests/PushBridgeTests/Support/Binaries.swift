import Foundation

/// The repository root, from this file's path.
let repositoryRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<4 { url.deleteLastPathComponent() }  // file, Support, PushBridgeTests, Tests
    return url.path
}()

/// The `pushbridge` binary `swift build --build-tests` made beside the tests.
let pushbridgeBinary: String = {
    let candidates = [repositoryRoot + "/.build/debug/pushbridge",
                      repositoryRoot + "/.build/release/pushbridge"]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[0]
}()
