/// The JSON the service worker (`dashboard/sw.js`) reads from a push message.
///
/// An alert: `{"type":"alert","title":…,"body":…,"tag":<collapse id>,"image":…,"data":{"id":…,"route":…,"url":…}}`
/// (the service worker shows it; a newer one with the same tag replaces the older one;
/// `image` is the URL of the first picture among the display message's attachments). A
/// condition's withdraw: `{"type":"withdraw","tag":<collapse id>,"data":{"id":<alert id>,"route":…}}`
/// (the service worker closes the notifications with that tag). Keys without a value are left out.
enum WebPushPayload {
    /// The payload for `display`, a display message (`format: json`) or a withdraw message;
    /// `nil` when it is neither (not a JSON object, or a withdraw without a collapse id).
    /// A body too long for one push message is shortened (ending in `…`); an image URL is
    /// never cut: it is left out when even an empty body leaves no room for it.
    package static func from(display: [UInt8]) -> [UInt8]? {
        guard let message = try? JSONValue.parse(display) else { return nil }
        return from(message: message)
    }

    /// `from(display:)` of the display message already parsed.
    static func from(message: JSONValue) -> [UInt8]? {
        guard case .object = message else { return nil }
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
                     interruptionLevel: message["interruption_level"]?.stringValue, image: image(in: message))
    }

    /// The URL of the first picture (`image/…`) of the display message's `attachments`.
    static func image(in message: JSONValue) -> String? {
        guard case .array(let list)? = message["attachments"],
              let picture = list.first(where: { $0["type"]?.stringValue?.hasPrefix("image/") == true }),
              let url = picture["url"]?.stringValue, VAPIDKey.origin(of: url) != nil else { return nil }
        return url
    }

    /// An alert payload, `body` shortened until the whole fits in one push message; `image`
    /// whole, or left out when it does not fit beside the title and an empty body.
    static func alert(title: String, body: String, tag: String?, id: String?, route: String?,
                      url: String?, interruptionLevel: String? = nil, image: String? = nil) -> [UInt8] {
        func payload(_ text: String, _ image: String?) -> [UInt8] {
            var w = JSONWriter()
            w.beginObject()
            w.add("type", "alert")
            w.add("title", title)
            w.add("body", text)
            w.add("tag", tag)
            w.add("image", image)
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
            return w.bytes
        }
        // A picture that cannot fit even beside an empty body is left out: the text is worth more.
        let image = image.flatMap { payload("", $0).count <= PayloadEncryption.maximumPlaintext ? $0 : nil }
        var text = body
        while true {
            let bytes = payload(text, image)
            let overflow = bytes.count - PayloadEncryption.maximumPlaintext
            // Shortened to nothing ("…"), the text can give no more.
            if overflow <= 0 || text.isEmpty || text == "…" { return bytes }
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
