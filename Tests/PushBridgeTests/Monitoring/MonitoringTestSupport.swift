import Foundation
@testable import PushBridge

/// A synthetic decision for counting tests.
func decision(_ outcome: Outcome, route: String? = "r", reason: RejectReason? = nil, by: String? = nil,
              modified: Bool = false, timedOut: Bool = false, failed: Bool = false,
              stage: Double? = nil) -> Decision {
    var d = Decision(outcome: outcome, route: outcome == .unrouted ? nil : route, rule: "test")
    if let reason { d.rejection = Rejection(reason, "test") }
    d.decidedBy = by
    d.modified = modified
    d.timedOut = timedOut
    d.extensionFailed = failed
    d.stageSeconds = stage
    return d
}

/// A JSON document decoded independently of pushbridge (Foundation's strict decoder).
enum DecodedJSON: Decodable {
    case null, bool(Bool), int(Int64), double(Double), string(String)
    case array([DecodedJSON]), object([String: DecodedJSON])

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let i = try? c.decode(Int64.self) { self = .int(i) }
        else if let d = try? c.decode(Double.self) { self = .double(d) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([DecodedJSON].self) { self = .array(a) }
        else { self = .object(try c.decode([String: DecodedJSON].self)) }
    }

    var value: JSONValue {
        switch self {
        case .null: .null
        case .bool(let b): .bool(b)
        case .int(let i): .int(i)
        case .double(let d): .double(d)
        case .string(let s): .string(s)
        case .array(let a): .array(a.map(\.value))
        case .object(let o): .object(JSONObject(o.mapValues(\.value)))
        }
    }
}

/// Parses JSON bytes with Foundation into a `JSONValue`; throws on invalid JSON.
func decodeJSON(_ bytes: [UInt8]) throws -> JSONValue {
    try JSONDecoder().decode(DecodedJSON.self, from: Data(bytes)).value
}

/// The member names of a JSON object (empty for anything else).
func keys(_ v: JSONValue?) -> Set<String> {
    if case .object(let o)? = v { return Set(o.keys) }
    return []
}
