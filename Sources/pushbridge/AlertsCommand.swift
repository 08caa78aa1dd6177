import Foundation
import PushBridge
import PushBridgeCLI

/// `pushbridge alerts`: the active conditions of the bridge FILE configures, read from its
/// `GET /api/alerts` (`monitoring.http` must be set), as a table or (`--json`) as answered.
enum AlertsCommand {
    static func run(_ args: Arguments, config: BridgeConfig) -> Int32 {
        switch BridgeAPI.get("/api/alerts", config: config, what: "alerts") {
        case .exit(let status):
            return status
        case .json(let body, let value):
            guard case .array(let alerts) = value else {
                return fail(1, "GET /api/alerts did not answer a JSON array")
            }
            printOut(args.flags.contains("--json") ? String(decoding: body, as: UTF8.self) : table(alerts))
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
