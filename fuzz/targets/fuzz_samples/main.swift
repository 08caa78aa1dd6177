// libFuzzer target: `pushbridge try --samples` input, parsed by the library's own
// `TrySamples.parse` (the `#@ at`, `#@ env`, `#@ retain` directives and the
// `topic<TAB>payload` lines) and run by `TrySamples.Runner` through the real pipeline of every
// shipped recipe (bridge.yml and examples/*/bridge.yml as they are in the checkout) and of
// fuzz/recipes/*.yml (every filter kind, `changed` with a deadband, small max_keys: routing,
// mapping, the language, the filter chain with its memory and the sample clock, validation,
// rendering; `#@ env` reloads the recipe as SIGHUP does).
//
// `parse` must return samples or throw a `TrySampleError` naming the file and line; every
// sample's decision is rendered as `try --json` and the table render it. Any trap is a bug.
// A recipe that starts an external process is left out (printed once at start).
import CFuzzerDriver
import Foundation
@testable import PushBridge
@testable import PushBridgeCLI

let environment = ["HOME_MODE": "away", "MQTT_HOST": "127.0.0.1"]
let day = Date(timeIntervalSince1970: 1_764_590_400)   // 2025-12-01T12:00:00Z

/// The recipes' config files that load and run in-process only.
let recipes: [String] = {
    var paths = ["bridge.yml"]
    let examples = (try? FileManager.default.contentsOfDirectory(atPath: "examples")) ?? []
    for name in examples.sorted() where FileManager.default.fileExists(atPath: "examples/\(name)/bridge.yml") {
        paths.append("examples/\(name)/bridge.yml")
    }
    let own = (try? FileManager.default.contentsOfDirectory(atPath: "fuzz/recipes")) ?? []
    paths += own.sorted().filter { $0.hasSuffix(".yml") }.map { "fuzz/recipes/\($0)" }
    let usable = paths.filter { path in
        switch ConfigLoader.load(path: path, environment: environment) {
        case .success(let config) where config.extension.command == nil: return true
        case .success: print("fuzz_samples: \(path) starts an external process; left out"); return false
        case .failure(let errors): print("fuzz_samples: \(path) does not load; left out:\n\(errors)"); return false
        }
    }
    if usable.isEmpty { fatalError("no recipe loads (run from the repository root)") }
    print("fuzz_samples: \(usable.count) recipes")
    return usable
}()

let logger = BridgeLogger(level: .error, sink: { _ in })

/// One runner per recipe (one pipeline, its filter memory); rebuilt now and then so the
/// memory stays bounded.
nonisolated(unsafe) var runners: [TrySamples.Runner] = []
nonisolated(unsafe) var inputs = 0

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzSamples(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    if inputs % 500 == 0 {
        runners = recipes.map {
            TrySamples.Runner(configPath: $0, baseEnvironment: environment, logger: logger, day: day,
                              defaultTime: day.timeIntervalSince1970)
        }
    }
    inputs += 1
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let samples: [TrySample]
    do throws(TrySampleError) {
        samples = try TrySamples.parse(text, path: "fuzz.tsv")
    } catch {
        if !error.description.hasPrefix("fuzz.tsv:") { fatalError("error without the file's name: \(error)") }
        return 0
    }
    for sample in samples.prefix(32) {
        for runner in runners {
            switch runner.decide(sample) {
            case .success(let (decision, message, handedOn)):
                for d in handedOn + [decision] {
                    _ = TryRunner.json(d, message: message).jsonText
                    _ = TryRunner.text(d, message: message)
                }
            case .failure(let errors):
                _ = errors.description   // `#@ env` can make a recipe's ${VAR} invalid: reported, fine
            }
        }
    }
    return 0
}

_ = recipes.count   // loaded before libFuzzer counts allocations
exit(pb_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv, fuzzSamples))
