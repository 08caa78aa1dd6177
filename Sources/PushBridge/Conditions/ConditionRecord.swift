import Foundation

/// Where a condition is in its life: raised → repeated / escalated → cleared; or
/// `superseded` (raised silently while the condition it depends on is raised) → raised
/// when that one clears.
package enum ConditionState: String, Sendable, CaseIterable {
    case raised, repeated, escalated, cleared, superseded
}

/// One condition of one route and key: what the engine remembers, the journal stores and
/// `GET /api/alerts` lists.
package struct ConditionRecord: Sendable {
    package var route: String
    package var key: String
    /// New for every raise (a raise after a clear is a new alert).
    package var alertID: String
    /// UNIX seconds.
    var raisedAt: Double
    /// The last transition: raised, repeated or escalated.
    var state: ConditionState = .raised
    /// Repeats delivered (held-back ones are not counted).
    package var repeats = 0
    /// The last escalation step taken (0: none yet).
    package var step = 0
    /// Acknowledged: repeats and escalation stop.
    package var acknowledged = false
    var acknowledgedBy: String? = nil
    /// Snoozed: repeats and escalation pause until then (UNIX seconds).
    var snoozedUntil: Double? = nil
    /// When the next repeat is due (UNIX seconds); `nil`: no more repeats.
    var nextRepeatAt: Double? = nil
    /// The message that raised it: repeats and steps are mapped from it again.
    package var topic: String
    package var payload: [UInt8]
    package var properties: [(name: String, value: String)] = []
    package var qos = 1
    /// The `depends_on` route whose raised condition made this one superseded; `nil` when it
    /// never was.
    var supersededBy: String? = nil
    /// The `depends_key` this one waits for (rendered at its raise); `nil`: any raised
    /// condition of `supersededBy`.
    var parentKey: String? = nil
    /// When a superseded condition was announced (UNIX seconds): its repeats and escalation
    /// steps count from then. `nil`: from `raisedAt`.
    var announcedAt: Double? = nil
    /// What repeats and escalation steps count from: the announcement, else the raise.
    var scheduleBase: Double { announcedAt ?? raisedAt }
    /// The Live Activity content state last sent (its rendered text), in memory only:
    /// after a restart the next message sends an update.
    var liveContentState: String? = nil

    init(route: String, key: String, alertID: String, raisedAt: Double, topic: String, payload: [UInt8]) {
        self.route = route
        self.key = key
        self.alertID = alertID
        self.raisedAt = raisedAt
        self.topic = topic
        self.payload = payload
    }

    /// `condition` as templates and the display message see it, for a notification in `state`.
    package func value(state: ConditionState, repeat number: Int? = nil) -> JSONValue {
        var o = JSONObject()
        o["key"] = .string(key)
        o["state"] = .string(state.rawValue)
        o["alert_id"] = .string(alertID)
        o["raised_at"] = .string(Timestamp.iso8601(raisedAt))
        o["repeat"] = .int(Int64(number ?? repeats))
        o["step"] = .int(Int64(step))
        return .object(o)
    }

    /// The entry of `GET /api/alerts` (absent values `null`).
    var apiValue: JSONValue {
        var o = JSONObject()
        o["alert_id"] = .string(alertID)
        o["route"] = .string(route)
        o["key"] = .string(key)
        o["state"] = .string(state.rawValue)
        o["raised_at"] = .string(Timestamp.iso8601(raisedAt))
        o["repeat"] = .int(Int64(repeats))
        o["step"] = .int(Int64(step))
        o["acknowledged_by"] = acknowledged ? .string(acknowledgedBy ?? "") : .null
        o["snoozed_until"] = snoozedUntil.map { .string(Timestamp.iso8601($0)) } ?? .null
        // The depends_on route it waits for, while it is superseded (the dashboard says so).
        o["superseded_by"] = state == .superseded ? supersededBy.map { .string($0) } ?? .null : .null
        return .object(o)
    }

    /// The journal's row text (every field, times as UNIX seconds).
    var stored: String {
        var o = JSONObject()
        o["alert_id"] = .string(alertID)
        o["raised_at"] = .double(raisedAt)
        o["state"] = .string(state.rawValue)
        o["repeats"] = .int(Int64(repeats))
        o["step"] = .int(Int64(step))
        o["acknowledged"] = .bool(acknowledged)
        o["acknowledged_by"] = acknowledgedBy.map(JSONValue.string) ?? .null
        o["snoozed_until"] = snoozedUntil.map(JSONValue.double) ?? .null
        o["next_repeat_at"] = nextRepeatAt.map(JSONValue.double) ?? .null
        o["topic"] = .string(topic)
        o["payload"] = .string(Data(payload).base64EncodedString())
        o["properties"] = .array(properties.map { .array([.string($0.name), .string($0.value)]) })
        o["qos"] = .int(Int64(qos))
        if let supersededBy { o["superseded_by"] = .string(supersededBy) }
        if let parentKey { o["parent_key"] = .string(parentKey) }
        if let announcedAt { o["announced_at"] = .double(announcedAt) }
        var bytes: [UInt8] = []
        JSONValue.object(o).write(into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A record from its journal row; `nil` when the row is not one.
    init?(route: String, key: String, stored text: String) {
        guard let v = try? JSONValue.parse(Array(text.utf8)),
              let id = v["alert_id"]?.stringValue, let raisedAt = v["raised_at"]?.numberValue,
              let topic = v["topic"]?.stringValue,
              let payload = v["payload"]?.stringValue.flatMap({ Data(base64Encoded: $0) }) else { return nil }
        self.init(route: route, key: key, alertID: id, raisedAt: raisedAt, topic: topic, payload: Array(payload))
        state = v["state"]?.stringValue.flatMap(ConditionState.init(rawValue:)) ?? .raised
        repeats = v["repeats"]?.exactInteger.map { Int($0) } ?? 0
        step = v["step"]?.exactInteger.map { Int($0) } ?? 0
        if case .bool(let a)? = v["acknowledged"] { acknowledged = a }
        acknowledgedBy = v["acknowledged_by"]?.stringValue
        snoozedUntil = v["snoozed_until"]?.numberValue
        nextRepeatAt = v["next_repeat_at"]?.numberValue
        if case .array(let pairs)? = v["properties"] {
            properties = pairs.compactMap { pair in
                guard case .array(let p) = pair, p.count == 2, let n = p[0].stringValue, let value = p[1].stringValue else { return nil }
                return (n, value)
            }
        }
        qos = v["qos"]?.exactInteger.map { Int($0) } ?? 1
        supersededBy = v["superseded_by"]?.stringValue
        parentKey = v["parent_key"]?.stringValue
        announcedAt = v["announced_at"]?.numberValue
    }
}
