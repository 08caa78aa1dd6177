@testable import PushBridge

/// Random `JSONValue` trees for the fuzz tests, including the values JSON text cannot
/// spell (NaN, infinities, lone surrogates replaced) and the extremes of each type.
enum RandomJSON {
    static let extremeNumbers: [JSONValue] = [
        .int(0), .int(-1), .int(1), .int(.min), .int(.max), .int(Int64(Int32.max) + 1), .int(Int64(Int32.min) - 1),
        .double(0), .double(-0.0), .double(0.5), .double(1), .double(-1e308), .double(1e308), .double(.nan),
        .double(.infinity), .double(-.infinity), .double(.leastNonzeroMagnitude), .double(9.3e18), .double(-9.3e18),
        .double(9_007_199_254_740_994), .double(1.0000000000000002),
    ]

    static let oddStrings = [
        "", " ", "\u{0}", "a\u{0}b", "\u{FFFD}", "\u{10FFFF}", "é", "e\u{301}", "🇫🇷", "\n\t\r", "\"\\", "{{", "}}",
        "1", "-1", "1e999", "true", "null", "critical", "time-sensitive", "alert", "background",
        String(repeating: "x", count: 5_000), "0a1b2c3d-0000-4000-8000-00000000abcd",
    ]

    /// A random value at most `depth` levels deep; object keys come from `keys` or `oddStrings`.
    static func value(depth: Int, keys: [String] = [], using rng: inout SeededGenerator) -> JSONValue {
        let kind = Int.random(in: 0..<(depth > 0 ? 8 : 6), using: &rng)
        switch kind {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return extremeNumbers.randomElement(using: &rng)!
        case 3: return .int(Int64.random(in: -5...5, using: &rng))
        case 4: return .double(Double.random(in: -2...2, using: &rng))
        case 5: return .string(oddStrings.randomElement(using: &rng)!)
        case 6:
            return .array((0..<Int.random(in: 0...4, using: &rng)).map { _ in
                value(depth: depth - 1, keys: keys, using: &rng)
            })
        default:
            var members: JSONObject = [:]
            for _ in 0..<Int.random(in: 0...5, using: &rng) {
                let key = (Bool.random(using: &rng) ? keys.randomElement(using: &rng) : nil)
                    ?? oddStrings.randomElement(using: &rng)!
                members[key] = value(depth: depth - 1, keys: keys, using: &rng)
            }
            return .object(members)
        }
    }
}
