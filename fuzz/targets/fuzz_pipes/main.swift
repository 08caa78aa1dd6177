// libFuzzer target: the pipes of the language (`value | name(arguments) | ...`), every one the
// parser knows, chained in any order with any arguments over any value.
//
// The pipe names are not listed here: they are read at start from the parser's own error for
// an unknown pipe ("known pipes: a, b, ..."), so a pipe added to the language is fuzzed
// without touching this file. The input drives a small program: each byte pair picks a pipe
// and an argument shape (none, small or huge or negative integers, strings, null, a variable,
// a nested pipeline); the rest of the input is the payload (JSON when it parses, else a
// string). The built source must parse or throw a `LanguageError` inside the source; what
// parses is evaluated and rendered in contexts holding every kind of value, and must not trap.
import CFuzzerDriver
import Foundation
@testable import PushBridge

/// The pipe names the parser accepts, from its error message for an unknown one.
let pipeNames: [String] = {
    let fallback = ["default", "upper", "lower", "round", "truncate", "json", "fixed", "number", "trim"]
    do throws(LanguageError) {
        _ = try Expression.parse("payload | no_such_pipe_for_fuzzing")
        return fallback
    } catch {
        guard let range = error.message.range(of: "known pipes: ") else { return fallback }
        let names = error.message[range.upperBound...].split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces.union(.punctuationCharacters)) }
            .filter { !$0.isEmpty }
        return names.isEmpty ? fallback : names
    }
}()

/// Argument lists a pipe may be given (most are wrong for most pipes: the parser must say so).
let argumentShapes: [String] = [
    "", "()", "(0)", "(1)", "(2)", "(15)", "(16)", "(-1)", "(3.5)", "(2147483647)", "(2147483648)",
    "(9223372036854775807)", "(\"\")", "(\"x\")", "(\"  \")", "(null)", "(true)", "(payload)",
    "(payload | upper)", "(1, 2)", "(\"a\", 3)", "([])", "([1, \"b\"])", "(topic)",
]

/// Starting values: the payload itself and literals of every kind.
let bases: [String] = [
    "payload", "payload.v", "payload.v[0]", "raw", "topic", "levels", "levels[1]", "qos", "now", "hour",
    "\"  15.00 \\n\"", "\"-0\"", "\"1e400\"", "\"abc\"", "\"\"", "0", "-1", "1.5", "9223372036854775807",
    "-9223372036854775808", "1e308", "null", "true", "[]", "[1, 2.5, \"3\"]", "payload.missing",
]

struct PipeContext: EvaluationContext {
    var payload: JSONValue

    /// Every variable but `payload` (a variable added to the language reads `null` here
    /// until it gets an entry: no switch to break).
    static let fixed: [Variable: JSONValue] = [
        .topic: .string("home/kitchen/sensor"),
        .levels: .array([.string("home"), .string(" 21.5 "), .string("")]),
        .raw: .string(" 42 "),
        .properties: .object(["unit": .string("°C")]),
        .route: .string("r"),
        .qos: .int(1),
        .retain: .bool(true),
        .pushType: .string("alert"),
        .priority: .int(10),
        .content: .object(["title": .string("T")]),
        .now: .double(1.7e9),
        .hour: .int(23),
        .weekday: .int(7),
    ]

    func value(of variable: Variable) -> JSONValue {
        variable == .payload ? payload : Self.fixed[variable] ?? .null
    }
}

let fixedPayloads: [JSONValue] = [
    .null, .string(" 15.00\n"), .string("abc"), .int(Int64.min), .double(-0.0), .double(1e308),
    .object(["v": .array([.string(" 1.25 "), .double(2.675), .int(-7)])]), .object(["v": .string("")]),
]

/// A parse error must point inside the source it is about.
func check(_ error: LanguageError, in source: String) {
    let length = source.utf8.count
    if error.offset < 0 || error.offset > length { fatalError("error offset \(error.offset) outside 0...\(length): \(source)") }
}

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzPipes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let first = bytes.first else { return 0 }
    // Byte 0: the base; then pairs (pipe, argument shape) up to a 0xFF byte; then the payload.
    var source = bases[Int(first) % bases.count]
    var i = 1
    while i + 1 < bytes.count, bytes[i] != 0xFF, i < 17 {
        source += " | " + pipeNames[Int(bytes[i]) % pipeNames.count] + argumentShapes[Int(bytes[i + 1]) % argumentShapes.count]
        i += 2
    }
    var payloads = fixedPayloads
    if i < bytes.count {
        let rest = bytes[(i + 1 < bytes.count ? i + 1 : bytes.count)...]
        payloads.append((try? JSONValue.parse(Array(rest))) ?? .string(String(decoding: rest, as: UTF8.self)))
    }
    do throws(LanguageError) {
        let expression = try Expression.parse(source)
        for payload in payloads {
            let context = PipeContext(payload: payload)
            _ = expression.evaluate(in: context).jsonText
            _ = expression.isTrue(in: context)
        }
    } catch {
        check(error, in: source)
    }
    let templateSource = "a {{ \(source) }} b"
    do throws(LanguageError) {
        let template = try Template.parse(templateSource)
        for payload in payloads {
            let context = PipeContext(payload: payload)
            _ = template.render(in: context)
            _ = template.value(in: context)
        }
    } catch {
        check(error, in: templateSource)
    }
    return 0
}

exit(pb_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv, fuzzPipes))
