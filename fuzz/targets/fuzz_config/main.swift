// libFuzzer target: the config loader (Config/*.swift, libyaml underneath).
//
// Any bytes, decoded as UTF-8 with replacement as the loader's file reader does, go
// through `ConfigLoader.load(text:path:environment:)`. It must return a config or a list
// of positioned errors, never trap; every error carries the path it was given.

import CFuzzerDriver
import Foundation
@testable import PushBridge

/// The environment `${VAR}` references resolve in.
let environment: [String: String] = ["MQTT_HOST": "broker", "EMPTY": "", "HOME_MODE": "away"]

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzConfig(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    switch ConfigLoader.load(text: text, path: "fuzz/bridge.yml", environment: environment) {
    case .success(let config):
        _ = config.routes.count
    case .failure(let errors):
        for error in errors.errors where error.path != "fuzz/bridge.yml" {
            fatalError("error without the file's path: \(error)")
        }
        _ = errors.description
    }
    return 0
}

exit(pb_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv, fuzzConfig))
