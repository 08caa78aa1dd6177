// libFuzzer target: the JSON parser and serializer (Support/JSON*.swift).
//
// Any input: `JSONValue.parse` must return or throw, never trap. When it parses, the
// compact text must parse again and serialize to the same text (serialization is a
// fixed point after one round), so a parser/serializer disagreement is a crash too.

import CFuzzerDriver
import Foundation
@testable import PushBridge

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let value = try? JSONValue.parse(bytes) else { return 0 }
    let text = value.jsonText
    guard let again = try? JSONValue.parse(text) else {
        fatalError("serialized JSON does not parse again: \(text.prefix(200))")
    }
    if again.jsonText != text {
        fatalError("serialization is not stable: \(text.prefix(200)) vs \(again.jsonText.prefix(200))")
    }
    // The string entry point must agree with the byte entry point on valid UTF-8.
    let decoded = String(decoding: bytes, as: UTF8.self)
    if Array(decoded.utf8) == Array(bytes), (try? JSONValue.parse(decoded))?.jsonText != text {
        fatalError("parse(String) and parse(bytes) disagree")
    }
    return 0
}

exit(pb_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv, fuzzJSON))
