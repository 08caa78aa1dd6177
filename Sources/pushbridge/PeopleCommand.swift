import Foundation
import PushBridge
import PushBridgeCLI

/// `pushbridge people`: each person's presence (home, away, unknown) and since when, read from
/// the `GET /api/people` of the bridge FILE configures (`monitoring.http` must be set), as a
/// table or (`--json`) as answered.
enum PeopleCommand {
    static func run(_ args: Arguments, config: BridgeConfig) -> Int32 {
        guard let http = config.monitoring.http else {
            return fail(2, "monitoring.http is not set in \(config.sourcePath); people are read from its /api/people")
        }
        let target = HealthTarget(address: http.connectable, path: "/api/people", bearer: config.monitoring.httpAuth?.token?.text)
        switch HealthProbe.get(target, timeoutMilliseconds: 5_000) {
        case .failure(let problem):
            return fail(1, "GET \(target) failed: \(problem.reason)")
        case .success(let answer) where answer.status != 200:
            return fail(1, "GET \(target) answered HTTP \(answer.status)")
        case .success(let answer):
            guard case .object(let people)? = try? JSONValue.parse(answer.body) else {
                return fail(1, "GET \(target) did not answer a JSON object")
            }
            if args.flags.contains("--json") {
                printOut(String(decoding: answer.body, as: UTF8.self))
            } else {
                printOut(table(people.map { ($0.key, $0.value) }))
            }
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
