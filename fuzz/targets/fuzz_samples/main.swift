// libFuzzer target: `pushbridge try --samples` input through the real pipeline of every
// shipped recipe (bridge.yml and examples/*/bridge.yml, as they are in the checkout).
//
// The input is a samples file: lines `topic<TAB>payload`, blank lines and `#` comments
// skipped, split the way Sources/pushbridge/TryCommand.swift splits them (that parser is in
// the CLI executable, which a fuzz target cannot link, so the split is repeated here; the
// `#@` directive lines are comments to it). Each sample goes through `Pipeline.process`
// (routing, mapping, the language, the filter chain with its memory, validation, rendering)
// of each recipe, with a clock that moves on per line, and the decision is rendered as
// `try --json` renders it. Any trap is a bug; a recipe whose config does not load or that
// starts an external process is left out (printed once at start).
import CFuzzerDriver
import Foundation
@testable import PushBridge

let environment = ["HOME_MODE": "away", "MQTT_HOST": "127.0.0.1"]

/// The recipes' configs, loaded once.
let configs: [BridgeConfig] = {
    var paths = ["bridge.yml"]
    let examples = (try? FileManager.default.contentsOfDirectory(atPath: "examples")) ?? []
    for name in examples.sorted() where FileManager.default.fileExists(atPath: "examples/\(name)/bridge.yml") {
        paths.append("examples/\(name)/bridge.yml")
    }
    var loaded: [BridgeConfig] = []
    for path in paths {
        guard let data = FileManager.default.contents(atPath: path) else { continue }
        switch ConfigLoader.load(text: String(decoding: data, as: UTF8.self), path: path, environment: environment) {
        case .success(let config) where config.extension.command == nil:
            loaded.append(config)
        case .success:
            print("fuzz_samples: \(path) starts an external process; left out")
        case .failure(let errors):
            print("fuzz_samples: \(path) does not load; left out:\n\(errors)")
        }
    }
    if loaded.isEmpty { fatalError("no recipe loads (run from the repository root)") }
    print("fuzz_samples: \(loaded.count) recipes")
    return loaded
}()

let logger = Logger(level: .error, sink: { _ in })

/// One pipeline per recipe; rebuilt now and then so filter memory stays bounded.
nonisolated(unsafe) var pipelines: [Pipeline] = []
nonisolated(unsafe) var inputs = 0

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzSamples(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    if inputs % 2000 == 0 {
        for p in pipelines { p.shutdown() }
        pipelines = configs.map { Pipeline(config: $0, logger: logger) }
    }
    inputs += 1
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    var now = 1_764_590_400.0   // 2025-12-01T12:00:00Z
    var samples = 0
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        if line.isEmpty || line.hasPrefix("#") { continue }
        guard let tab = line.firstIndex(of: "\t") else { continue }
        let message = InboundMessage(topic: String(line[..<tab]), payload: Array(line[line.index(after: tab)...].utf8),
                                     qos: 1, receivedAt: now)
        for pipeline in pipelines {
            let decision = TryRunner.run(pipeline: pipeline, message: message, now: now)
            _ = TryRunner.json(decision, message: message).jsonText
            _ = TryRunner.text(decision, message: message)
        }
        now += 7
        samples += 1
        if samples == 32 { break }
    }
    return 0
}

_ = configs.count   // loaded before libFuzzer counts allocations
exit(pb_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv, fuzzSamples))
