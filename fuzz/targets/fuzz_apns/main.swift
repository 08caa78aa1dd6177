// libFuzzer target: the APNs body reader (Notifications/APNsBody.swift) behind `input: apns`.
//
// The input is parsed as JSON (errors are fine); a JSON value goes through
// `APNsBodyReader.read`, which must return or throw a `Rejection`. A body it accepts is
// turned into a request that is validated and serialized back (body and headers), and
// that body must read back into the same body.

import CFuzzerDriver
import Foundation
@testable import PushBridge

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzAPNs(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let body = try? JSONValue.parse(bytes) else { return 0 }
    let parsed: APNsBodyReader.Parsed
    do throws(Rejection) {
        parsed = try APNsBodyReader.read(body)
    } catch {
        _ = error.detail
        return 0
    }
    var request = NotificationRequest(id: "0a1b2c3d-0000-4000-8000-00000000abcd", pushType: .alert, priority: 10,
                                      mutableContent: parsed.mutableContent,
                                      contentAvailable: parsed.contentAvailable, content: parsed.content)
    _ = try? request.validate()
    _ = request.apnsHeaders
    let out = request.apnsBody
    guard let reread = try? APNsBodyReader.read(out) else {
        fatalError("the body built from an accepted body is rejected: \(out.jsonText.prefix(200))")
    }
    var again = request
    again.content = reread.content
    again.mutableContent = reread.mutableContent
    again.contentAvailable = reread.contentAvailable
    if again.apnsBody.jsonText != out.jsonText {
        fatalError("APNs body does not round-trip: \(out.jsonText.prefix(200))")
    }
    request.pushType = nil
    _ = try? request.validate()
    return 0
}

exit(pb_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv, fuzzAPNs))
