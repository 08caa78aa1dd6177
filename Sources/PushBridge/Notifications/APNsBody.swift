/// Building and reading the APNs JSON body (`{"aps":{…}, …custom keys}`).
extension NotificationRequest {
    /// The `aps` dictionary and the custom keys as APNs would receive them.
    package var apnsBody: JSONValue {
        var aps: JSONObject = [:], alert: JSONObject = [:]
        let c = content
        for field in ContentField.allCases {
            guard let value = field == .sound ? c.soundJSON : field.value(in: c) else { continue }
            if field.inAlert { alert[field.apsKey] = value } else { aps[field.apsKey] = value }
        }
        if !alert.isEmpty { aps["alert"] = .object(alert) }
        if contentAvailable { aps["content-available"] = .int(1) }
        // With attachments the app's own service extension downloads them: it only runs with mutable-content.
        if mutableContent || !c.attachments.isEmpty { aps["mutable-content"] = .int(1) }
        liveActivity?.write(into: &aps)
        var body: JSONObject = [:]
        if case .object(let custom) = c.userInfo {
            for (k, v) in custom where k != "aps" { body[k] = v }
        }
        let urls = c.attachments.compactMap(\.url)
        if let first = urls.first {
            body["attachment-url"] = .string(first)
            body["attachments"] = .array(urls.map(JSONValue.string))
        }
        body["aps"] = .object(aps)
        return .object(body)
    }

    /// The APNs headers as (name, value) pairs, in a stable order.
    package var apnsHeaders: [(name: String, value: String)] {
        var h: [(name: String, value: String)] = [("apns-id", id)]
        if let p = pushType { h.append(("apns-push-type", p.rawValue)) }
        h.append(("apns-priority", String(priority)))
        if let c = collapseID { h.append(("apns-collapse-id", c)) }
        if let e = expiration { h.append(("apns-expiration", String(e))) }
        return h
    }
}

/// Reads an APNs JSON body into notification content (for `input: apns`).
enum APNsBodyReader {
    /// What an APNs body carries besides the content.
    package struct Parsed: Sendable {
        package var content: NotificationContent
        var mutableContent: Bool
        var contentAvailable: Bool
    }

    /// Parses `body`; throws `InvalidPayload` when it is not an APNs body.
    package static func read(_ body: JSONValue) throws(Rejection) -> Parsed {
        guard case .object(let top) = body else {
            throw Rejection(.invalidPayload, "an APNs body must be a JSON object")
        }
        guard case .object(let aps)? = top["aps"] else {
            throw Rejection(.invalidPayload, "an APNs body needs an 'aps' dictionary")
        }
        var c = NotificationContent()
        var alert: JSONObject = [:]
        switch aps["alert"] {
        case nil, .null?: break
        case .string(let s)?: c.body = s
        case .object(let o)?: alert = o
        default: throw Rejection(.invalidPayload, "'aps.alert' must be a string or a dictionary")
        }
        if let problem = c.setSound(aps["sound"]) {
            throw Rejection(.invalidPayload, "'aps.sound' \(problem)")
        }
        for field in ContentField.allCases where field != .sound {
            let place = field.inAlert ? "aps.alert.\(field.apsKey)" : "aps.\(field.apsKey)"
            let value = (field.inAlert ? alert : aps)[field.apsKey]
            if value == nil || value == .null { continue }
            switch (field.kind, value) {
            case (.text, .string?): break
            case (.level, .string(let level)?):
                guard InterruptionLevel(rawValue: level) != nil else {
                    throw Rejection(.invalidPayload, "'\(place)' must be passive, active, time-sensitive or critical, got \"\(level)\"")
                }
            case (.text, _), (.level, _): throw Rejection(.invalidPayload, "'\(place)' must be a string")
            case (.integer, .int(let n)?) where n >= Int64(Int32.min) && n <= Int64(Int32.max): break
            case (.integer, _): throw Rejection(.invalidPayload, "'\(place)' must be an integer")
            case (.score, let number?) where (0...1).contains(number.numberValue ?? -1): break
            case (.score, _): throw Rejection(.invalidPayload, "'\(place)' must be a number from 0 to 1")
            }
            field.set(value, in: &c)
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
}
