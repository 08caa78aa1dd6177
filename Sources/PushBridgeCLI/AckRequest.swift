import Foundation
import PushBridge

/// What `pushbridge ack` checks before it publishes: its arguments (one non-empty alert id,
/// a snooze duration above zero) and, when the bridge's `GET /api/alerts` answers, that the
/// id is one of the active alerts.
package enum AckRequest {
    /// The acknowledgement the arguments ask for, or why they cannot be one (exit 2).
    package static func make(positionals: [String], snooze: String?, by: String?) -> Result<Acknowledgement, AckRefusal> {
        let list = "'pushbridge alerts' lists the active ones"
        guard let id = positionals.first else {
            return .failure(AckRefusal("'ack' needs one ALERT_ID; \(list)"))
        }
        guard positionals.count == 1 else {
            let words = positionals.map { "'\($0)'" }.joined(separator: " ")
            return .failure(AckRefusal("'ack' takes one ALERT_ID, got \(positionals.count): \(words)"
                + (snooze == nil ? "" : "; '--snooze' takes one word, such as 30m or 1.5h")))
        }
        guard !id.allSatisfy(\.isWhitespace) else {
            return .failure(AckRefusal("the ALERT_ID is empty; give the alert_id of an active alert (\(list))"))
        }
        var ack = Acknowledgement(alertID: id, by: by)
        if let snooze {
            guard let d = Acknowledgement.duration(snooze) else {
                return .failure(AckRefusal("'--snooze' must be a duration above zero: a number and a unit, "
                    + "ms, s, m, h or d (30m, 1.5h, 90s), got '\(snooze)'"))
            }
            ack.snooze = d
        }
        return .success(ack)
    }

    /// `nil` when `id` is the `alert_id` of one of `alerts` (the array `GET /api/alerts`
    /// answers); otherwise the message `ack` exits 1 with: `no active alert <id>`, then one
    /// line per active alert (id, route, key), or that none is active.
    package static func missing(_ id: String, in alerts: [JSONValue]) -> String? {
        func text(_ v: JSONValue?) -> String { v?.stringValue ?? "-" }
        if alerts.contains(where: { $0["alert_id"]?.stringValue == id }) { return nil }
        guard !alerts.isEmpty else { return "no active alert \(id) (no alert is active now)" }
        var rows = [["ALERT_ID", "ROUTE", "KEY"]]
        rows += alerts.map { [text($0["alert_id"]), text($0["route"]), text($0["key"])] }
        let widths = (0..<3).map { c in rows.map { $0[c].count }.max() ?? 0 }
        let table = rows.map { row in
            zip(row, widths).map { $0.0.padding(toLength: $0.1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces)
        }
        return (["no active alert \(id); the active ones:"] + table.map { "  " + $0 }).joined(separator: "\n")
    }
}

/// Why `pushbridge ack`'s arguments are not an acknowledgement: what is wrong and what to do.
package struct AckRefusal: Error, Equatable, CustomStringConvertible {
    package var description: String
    init(_ description: String) { self.description = description }
}
