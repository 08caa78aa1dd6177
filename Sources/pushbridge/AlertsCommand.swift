import Foundation
import PushBridge
import PushBridgeCLI

/// `pushbridge alerts`: the active conditions of the bridge FILE configures, read from its
/// `GET /api/alerts` (`monitoring.http` must be set), as a table or (`--json`) as answered.
enum AlertsCommand {
    static func run(_ args: Arguments, config: BridgeConfig) -> Int32 {
        guard let http = config.monitoring.http else {
            return fail(2, "monitoring.http is not set in \(config.sourcePath); alerts are read from its /api/alerts")
        }
        let target = HealthTarget(address: http.connectable, path: "/api/alerts", bearer: config.monitoring.httpAuth?.token?.text)
        switch HealthProbe.get(target, timeoutMilliseconds: 5_000) {
        case .failure(let problem):
            return fail(1, "GET \(target) failed: \(problem.reason)")
        case .success(let answer) where answer.status != 200:
            return fail(1, "GET \(target) answered HTTP \(answer.status)")
        case .success(let answer):
            guard case .array(let alerts)? = try? JSONValue.parse(answer.body) else {
                return fail(1, "GET \(target) did not answer a JSON array")
            }
            if args.flags.contains("--json") {
                printOut(String(decoding: answer.body, as: UTF8.self))
            } else {
                printOut(table(alerts))
            }
            return 0
        }
    }

    /// One line per alert: id, route, key, state, since, repeats, step, acknowledged / snoozed.
    static func table(_ alerts: [JSONValue]) -> String {
        guard !alerts.isEmpty else { return "no active alerts" }
        func text(_ v: JSONValue?) -> String {
            switch v {
            case .string(let s)?: return s
            case .int(let n)?: return String(n)
            default: return "-"
            }
        }
        var rows = [["ALERT_ID", "ROUTE", "KEY", "STATE", "SINCE", "REPEATS", "STEP", "ACKNOWLEDGED / SNOOZED"]]
        for a in alerts {
            var answered = "-"
            if let by = a["acknowledged_by"], !by.isNull { answered = "by " + (text(by).isEmpty ? "(anonymous)" : text(by)) }
            if let until = a["snoozed_until"], !until.isNull { answered = "snoozed until " + text(until) }
            rows.append([text(a["alert_id"]), text(a["route"]), text(a["key"]), text(a["state"]), text(a["raised_at"]),
                         text(a["repeat"]), text(a["step"]), answered])
        }
        let widths = (0..<rows[0].count).map { c in rows.map { $0[c].count }.max() ?? 0 }
        return rows.map { row in
            zip(row, widths).map { $0.0.padding(toLength: $0.1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces)
        }.joined(separator: "\n")
    }
}
