/// The JSON the service worker (`dashboard/sw.js`) reads from a push message.
///
/// An alert: `{"type":"alert","title":…,"body":…,"tag":<collapse id>,"data":{"id":…,"route":…,"url":…}}`
/// (the service worker shows it; a newer one with the same tag replaces the older one). A
/// condition's withdraw: `{"type":"withdraw","tag":<collapse id>,"data":{"id":<alert id>,"route":…}}`
/// (the service worker closes the notifications with that tag). Keys without a value are left out.
enum WebPushPayload {
    /// The payload for `display`, a display message (`format: json`) or a withdraw message;
    /// `nil` when it is neither (not a JSON object, or a withdraw without a collapse id).
    /// A body too long for one push message is shortened (ending in `…`).
    package static func from(display: [UInt8]) -> [UInt8]? {
        guard let message = try? JSONValue.parse(display), case .object = message else { return nil }
        if message["type"]?.stringValue == "withdraw" {
            guard let tag = message["collapse_id"]?.stringValue, !tag.isEmpty else { return nil }
            return withdraw(tag: tag, alertID: message["alert_id"]?.stringValue, route: message["route"]?.stringValue)
        }
        var body = message["body"]?.stringValue ?? ""
        if let subtitle = message["subtitle"]?.stringValue, !subtitle.isEmpty {
            body = body.isEmpty ? subtitle : subtitle + "\n" + body
        }
        return alert(title: message["title"]?.stringValue ?? "", body: body,
                     tag: message["collapse_id"]?.stringValue, id: message["id"]?.stringValue,
                     route: message["route"]?.stringValue, url: link(message["user_info"]?["url"]?.stringValue),
                     interruptionLevel: message["interruption_level"]?.stringValue)
    }

    /// An alert payload, `body` shortened until the whole fits in one push message.
    static func alert(title: String, body: String, tag: String?, id: String?, route: String?,
                             url: String?, interruptionLevel: String? = nil) -> [UInt8] {
        var text = body
        while true {
            var w = JSONWriter()
            w.beginObject()
            w.add("type", "alert")
            w.add("title", title)
            w.add("body", text)
            w.add("tag", tag)
            if interruptionLevel == InterruptionLevel.critical.rawValue {
                w.key("require_interaction"); w.bool(true)
            } else if interruptionLevel == InterruptionLevel.passive.rawValue {
                w.key("silent"); w.bool(true)
            }
            w.key("data")
            w.beginObject()
            w.add("id", id)
            w.add("route", route)
            w.add("url", url)
            w.endObject()
            w.endObject()
            let overflow = w.bytes.count - PayloadEncryption.maximumPlaintext
            if overflow <= 0 || text.isEmpty { return w.bytes }
            text = shortened(text, by: overflow)
        }
    }

    /// A withdraw payload.
    static func withdraw(tag: String, alertID: String?, route: String?) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.add("type", "withdraw")
        w.add("tag", tag)
        w.key("data")
        w.beginObject()
        w.add("id", alertID)
        w.add("route", route)
        w.endObject()
        w.endObject()
        return w.bytes
    }

    /// `url` when a click may open it: an http(s) URL or a path on the bridge's own server.
    static func link(_ url: String?) -> String? {
        guard let url else { return nil }
        if url.hasPrefix("/"), !url.hasPrefix("//") { return url }
        return VAPIDKey.origin(of: url) != nil ? url : nil
    }

    /// `text` without enough of its end to save `bytes` bytes (escapes may make it more), then `…`.
    private static func shortened(_ text: String, by bytes: Int) -> String {
        var out = Substring(text)
        var saved = 0
        while saved < bytes + 3, !out.isEmpty { saved += out.removeLast().utf8.count }
        return out + "…"
    }
}
