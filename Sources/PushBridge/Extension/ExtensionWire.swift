/// The external extension's newline-delimited JSON protocol (docs/formats.md, "External extension process").
///
/// ```
/// bridge -> child  {"id":"…","topic":"…","route":"…","push_type":"alert","priority":10,"content":{…}}
/// child -> bridge  {"id":"…","content":{…}}        ({} means empty content)
/// bridge -> child  {"id":"…","event":"time_will_expire"}
/// ```
/// Content members: the `ContentField` keys (`title`, `thread_id`, …), `attachments` (a list
/// of `{identifier, type, size, url}`; an answer may list fewer, by object or by identifier,
/// never new ones) and `user_info`; absent members are left out. An answer's
/// content replaces the content as a whole (a member it leaves out is gone); `null` is absent.
enum ExtensionWire {
    /// Why an answer line could not be used.
    struct Garbage: Error, CustomStringConvertible {
        /// The request id when it could be read from the line.
        var id: String?
        var description: String
    }

    /// One request line (without the newline).
    static func requestLine(id: String, request: NotificationRequest, context: MessageContext,
                            content: NotificationContent) -> String {
        JSONValue.object([
            "id": .string(id),
            "topic": .string(context.topic),
            "route": .string(context.route),
            "push_type": .string(request.pushTypeName),
            "priority": .int(Int64(request.priority)),
            "content": json(content),
        ]).jsonText
    }

    /// The `time_will_expire` event line for `id`.
    static func timeWillExpireLine(id: String) -> String {
        JSONValue.object(["id": .string(id), "event": .string("time_will_expire")]).jsonText
    }

    /// Content as it travels.
    static func json(_ content: NotificationContent) -> JSONValue {
        guard case .object(var members) = content.jsonValue else { return .object([:]) }
        if let sound = content.soundJSON { members["sound"] = sound }  // the critical dictionary as it is
        return .object(members)
    }

    /// Reads one answer line: the request id and the content.
    static func answer(_ line: String) throws(Garbage) -> (id: String, content: NotificationContent) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(line)
        } catch {
            throw Garbage(id: scrapeID(line), description: "not JSON (\(error))")
        }
        guard case .object(let members) = value else { throw Garbage(id: nil, description: "not a JSON object") }
        guard let id = members["id"]?.stringValue else { throw Garbage(id: nil, description: "no string 'id'") }
        guard let contentValue = members["content"] else { throw Garbage(id: id, description: "no 'content'") }
        do {
            return (id, try content(from: contentValue))
        } catch {
            throw Garbage(id: id, description: error.description)
        }
    }

    /// Content from its wire form; wrong member types are garbage.
    static func content(from value: JSONValue) throws(Garbage) -> NotificationContent {
        guard case .object(let o) = value else { throw Garbage(id: nil, description: "'content' is not an object") }
        var c = NotificationContent()
        if let problem = c.setSound(o["sound"]) { throw Garbage(id: nil, description: "'sound' \(problem)") }
        for field in ContentField.allCases where field != .sound {
            let key = field.key, value = o[key]
            if value == nil || value == .null { continue }
            switch (field.kind, value) {
            case (.text, .string?): field.set(value, in: &c)
            case (.level, .string(let level)?):
                guard InterruptionLevel(rawValue: level) != nil else {
                    throw Garbage(id: nil, description: "'\(key)' \"\(level)\" is not an APNs level")
                }
                field.set(value, in: &c)
            case (.text, _), (.level, _): throw Garbage(id: nil, description: "'\(key)' is not a string")
            case (.integer, let n?) where n.exactInteger != nil: field.set(n, in: &c)
            case (.integer, _): throw Garbage(id: nil, description: "'\(key)' is not an integer")
            case (.score, let n?) where n.numberValue != nil: field.set(.double(min(1, max(0, n.numberValue!))), in: &c)
            case (.score, _): throw Garbage(id: nil, description: "'\(key)' is not a number")
            }
        }
        switch o["attachments"] {
        case nil, .null?: break
        case .array(let items)?:
            // Only the identifiers count: the stage keeps the request's own attachments they name.
            c.attachments = try items.map { item throws(Garbage) in
                guard let identifier = item.stringValue ?? item["identifier"]?.stringValue else {
                    throw Garbage(id: nil, description: "'attachments' holds an item that is neither an identifier nor an object with one")
                }
                return NotificationAttachment(identifier: identifier, type: "", size: 0, file: "")
            }
        default: throw Garbage(id: nil, description: "'attachments' is not a list")
        }
        c.userInfo = o["user_info"] ?? .object([:])
        return c
    }

    /// The `"id":"…"` of a line that is not valid JSON, when it can be seen.
    static func scrapeID(_ line: String) -> String? {
        guard let keyRange = line.range(of: "\"id\"") else { return nil }
        var rest = line[keyRange.upperBound...].drop(while: { $0 == " " })
        guard rest.first == ":" else { return nil }
        rest = rest.dropFirst().drop(while: { $0 == " " })
        guard rest.first == "\"" else { return nil }
        rest = rest.dropFirst()
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        let id = String(rest[..<end])
        return id.contains("\\") ? nil : id
    }
}
