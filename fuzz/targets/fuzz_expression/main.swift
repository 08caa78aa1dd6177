// libFuzzer target: the expression and template language (Language/*.swift).
//
// The input is split at its first NUL byte: the part before it is the source, the part
// after it (if any) is a JSON payload (a string payload when it is not JSON). The source
// is parsed as an expression and as a template: each must succeed or throw a
// `LanguageError` whose offset lies inside the source. What parses is evaluated and
// rendered against the payload and against fixed contexts holding every kind of value;
// evaluation never fails by contract, so any trap is a bug.

import CFuzzerDriver
import Foundation
@testable import PushBridge

struct FuzzContext: EvaluationContext {
    var payload: JSONValue

    /// Every variable but `payload` (a variable added to the language reads `null` here
    /// until it gets an entry: no switch to break).
    static let fixed: [Variable: JSONValue] = [
        .topic: .string("home/front/doorbell"),
        .levels: .array([.string("home"), .string(""), .string("ü/é")]),
        .raw: .string("{\"who\":\"Alice\"}"),
        .properties: .object(["": .string(""), "apns-id": .string("x")]),
        .route: .string("doorbell"),
        .qos: .int(1),
        .retain: .bool(false),
        .pushType: .string("alert"),
        .priority: .int(Int64.max),
        .content: .object(["title": .string("T"), "user_info": .object([:])]),
        .now: .int(Int64.min),
        .hour: .double(-0.0),
        .weekday: .double(1e308),
    ]

    func value(of variable: Variable) -> JSONValue {
        variable == .payload ? payload : Self.fixed[variable] ?? .null
    }
}

let fixedPayloads: [JSONValue] = [
    .null, .bool(true), .int(0), .int(Int64.min), .int(Int64.max), .double(-1.5e308), .double(.leastNonzeroMagnitude),
    .string(""), .string("a\u{0}b\u{10FFFF}"), .array([.int(-1), .null, .array([])]),
    .object(["x": .int(3), "who": .string("Alice"), "": .null, "n": .object(["m": .array([.double(0.5)])])]),
]

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzExpression(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let split = bytes.firstIndex(of: 0) ?? size
    let source = String(decoding: UnsafeBufferPointer(rebasing: bytes[0..<split]), as: UTF8.self)
    var payloads = fixedPayloads
    if split < size {
        let rest = UnsafeBufferPointer(rebasing: bytes[(split + 1)...])
        payloads.append((try? JSONValue.parse(rest)) ?? .string(String(decoding: rest, as: UTF8.self)))
    }
    let length = source.utf8.count
    do throws(LanguageError) {
        let expression = try Expression.parse(source)
        for payload in payloads {
            let context = FuzzContext(payload: payload)
            _ = expression.evaluate(in: context).jsonText
            _ = expression.isTrue(in: context)
        }
    } catch {
        if error.offset < 0 || error.offset > length { fatalError("error offset \(error.offset) outside 0...\(length)") }
    }
    do throws(LanguageError) {
        let template = try Template.parse(source)
        for payload in payloads {
            let context = FuzzContext(payload: payload)
            _ = template.render(in: context)
            _ = template.value(in: context)
        }
    } catch {
        if error.offset < 0 || error.offset > length { fatalError("error offset \(error.offset) outside 0...\(length)") }
    }
    return 0
}

exit(pb_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv, fuzzExpression))
