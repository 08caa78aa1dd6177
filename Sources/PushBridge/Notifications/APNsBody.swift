/// Building and reading the APNs JSON body (`{"aps":{…}, …custom keys}`).
extension NotificationRequest {
    /// The `aps` dictionary and the custom keys as APNs would receive them.
    public var apnsBody: JSONValue {
        var aps: JSONObject = [:]
        let c = content
        if c.hasAlertText || c.title != nil || c.subtitle != nil || c.body != nil {
            var alert: JSONObject = [:]
            if let t = c.title { alert["title"] = .string(t) }
            if let s = c.subtitle { alert["subtitle"] = .string(s) }
            if let b = c.body { alert["body"] = .string(b) }
            aps["alert"] = .object(alert)
        }
        if let badge = c.badge { aps["badge"] = .int(Int64(badge)) }
        if let sound = c.soundJSON { aps["sound"] = sound }
        if let v = c.threadID { aps["thread-id"] = .string(v) }
        if let v = c.category { aps["category"] = .string(v) }
        if contentAvailable { aps["content-available"] = .int(1) }
        if mutableContent { aps["mutable-content"] = .int(1) }
        if let v = c.targetContentID { aps["target-content-id"] = .string(v) }
        if let v = c.interruptionLevel { aps["interruption-level"] = .string(v) }
        if let v = c.relevanceScore { aps["relevance-score"] = .double(v) }
        if let v = c.filterCriteria { aps["filter-criteria"] = .string(v) }
        var body: JSONObject = [:]
        if case .object(let custom) = c.userInfo {
            for (k, v) in custom where k != "aps" { body[k] = v }
        }
        body["aps"] = .object(aps)
        return .object(body)
    }

    /// The APNs headers as (name, value) pairs, in a stable order.
    public var apnsHeaders: [(name: String, value: String)] {
        var h: [(name: String, value: String)] = [("apns-id", id)]
        if let p = pushType { h.append(("apns-push-type", p.rawValue)) }
        h.append(("apns-priority", String(priority)))
        if let c = collapseID { h.append(("apns-collapse-id", c)) }
        if let e = expiration { h.append(("apns-expiration", String(e))) }
        return h
    }
}

/// Reads an APNs JSON body into notification content (for `input: apns`).
public enum APNsBodyReader {
    /// What an APNs body carries besides the content.
    public struct Parsed: Sendable {
        public var content: NotificationContent
        public var mutableContent: Bool
        public var contentAvailable: Bool
    }

    /// Parses `body`; throws `InvalidPayload` when it is not an APNs body.
    public static func read(_ body: JSONValue) throws(Rejection) -> Parsed {
        guard case .object(let top) = body else {
            throw Rejection(.invalidPayload, "an APNs body must be a JSON object")
        }
        guard case .object(let aps)? = top["aps"] else {
            throw Rejection(.invalidPayload, "an APNs body needs an 'aps' dictionary")
        }
        var c = NotificationContent()
        switch aps["alert"] {
        case nil, .null?: break
        case .string(let s)?: c.body = s
        case .object(let alert)?:
            c.title = try string(alert, "title", in: "aps.alert")
            c.subtitle = try string(alert, "subtitle", in: "aps.alert")
            c.body = try string(alert, "body", in: "aps.alert")
        default: throw Rejection(.invalidPayload, "'aps.alert' must be a string or a dictionary")
        }
        switch aps["badge"] {
        case nil, .null?: break
        case .int(let n)? where n >= Int64(Int32.min) && n <= Int64(Int32.max): c.badge = Int(n)
        default: throw Rejection(.invalidPayload, "'aps.badge' must be an integer")
        }
        if let problem = c.setSound(aps["sound"]) {
            throw Rejection(.invalidPayload, "'aps.sound' \(problem)")
        }
        c.threadID = try string(aps, "thread-id", in: "aps")
        c.category = try string(aps, "category", in: "aps")
        c.targetContentID = try string(aps, "target-content-id", in: "aps")
        c.filterCriteria = try string(aps, "filter-criteria", in: "aps")
        if let level = try string(aps, "interruption-level", in: "aps") {
            guard InterruptionLevel(rawValue: level) != nil else {
                throw Rejection(.invalidPayload, "'aps.interruption-level' must be passive, active, time-sensitive or critical, got \"\(level)\"")
            }
            c.interruptionLevel = level
        }
        switch aps["relevance-score"] {
        case nil, .null?: break
        case .int(let n)? where n >= 0 && n <= 1: c.relevanceScore = Double(n)
        case .double(let d)? where d >= 0 && d <= 1: c.relevanceScore = d
        default: throw Rejection(.invalidPayload, "'aps.relevance-score' must be a number from 0 to 1")
        }
        var custom = top
        custom["aps"] = nil
        c.userInfo = .object(custom)
        return Parsed(content: c, mutableContent: flag(aps["mutable-content"]),
                      contentAvailable: flag(aps["content-available"]))
    }

    private static func flag(_ v: JSONValue?) -> Bool {
        switch v {
        case .int(let n)?: return n == 1
        case .bool(let b)?: return b
        default: return false
        }
    }

    private static func string(_ d: JSONObject, _ key: String, in place: String) throws(Rejection) -> String? {
        switch d[key] {
        case nil, .null?: return nil
        case .string(let s)?: return s
        default: throw Rejection(.invalidPayload, "'\(place).\(key)' must be a string")
        }
    }
}
