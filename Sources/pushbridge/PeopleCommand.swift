import Foundation
import PushBridge
import PushBridgeCLI

/// `pushbridge people`: each person's presence (home, away, unknown) and since when, read from
/// the `GET /api/people` of the bridge FILE configures (`monitoring.http` must be set), as a
/// table or (`--json`) as answered.
enum PeopleCommand {
    static func run(_ args: Arguments, config: BridgeConfig) -> Int32 {
        switch BridgeAPI.get("/api/people", config: config, what: "people") {
        case .exit(let status):
            return status
        case .json(let body, let value):
            guard case .object(let people) = value else {
                return fail(1, "GET /api/people did not answer a JSON object")
            }
            printOut(args.flags.contains("--json") ? String(decoding: body, as: UTF8.self) : table(people.map { ($0.key, $0.value) }))
            return 0
        }
    }

    /// One line per person: name, presence, since.
    static func table(_ people: [(String, JSONValue)]) -> String {
        guard !people.isEmpty else { return "no people configured" }
        var rows = [["PERSON", "PRESENCE", "SINCE"]]
        for (name, p) in people {
            rows.append([name, p["presence"]?.stringValue ?? "-", p["since"]?.stringValue ?? "-"])
        }
        let widths = (0..<rows[0].count).map { c in rows.map { $0[c].count }.max() ?? 0 }
        return rows.map { row in
            zip(row, widths).map { $0.0.padding(toLength: $0.1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces)
        }.joined(separator: "\n")
    }
}
