/// The display message's JSON (`format: json`, docs/formats.md), written straight into bytes.
///
/// The keys never change: each one, with its quotes, its colon and the comma before it, is
/// a constant (`,"title":`), so a message writes only its values. The key order is the one
/// docs/formats.md shows; `DisplayJSONTests` holds the result byte for byte against the general
/// `JSONWriter` writing the same members.
extension DisplayRenderer {
    /// The display message's JSON for `r`, keys in the documented order.
    static func displayJSON(_ r: NotificationRequest, source: String, route: String,
                                   modified: Bool, receivedAt: Double, condition: JSONValue = .null) -> [UInt8] {
        var b: [UInt8] = []
        b.append { w in
            writeDisplayJSON(r, source: source, route: route, modified: modified, receivedAt: receivedAt,
                             condition: condition, to: &w)
        }
        return b
    }

    private static func writeDisplayJSON(_ r: NotificationRequest, source: String, route: String, modified: Bool,
                                         receivedAt: Double, condition: JSONValue, to b: inout ByteBuffer) {
        let c = r.content
        b.append("{\"id\":")
        JSONValue.writeString(r.id, to: &b)
        b.append(",\"source_topic\":")
        JSONValue.writeString(source, to: &b)
        b.append(",\"route\":")
        JSONValue.writeString(route, to: &b)
        b.append(r.pushType?.displayMember ?? ",\"push_type\":\"none\",\"priority\":")
        JSONValue.writeInteger(Int64(r.priority), to: &b)
        if let collapseID = r.collapseID {
            b.append(",\"collapse_id\":")
            JSONValue.writeString(collapseID, to: &b)
        }
        for field in ContentField.allCases {
            if field.slot != nil {
                if let text = c[text: field] {
                    b.append(field.displayMember)
                    JSONValue.writeString(text, to: &b)
                } else if field == .title || field == .body {
                    // Always in the display message, `""` when absent.
                    b.append(field.displayMember)
                    b.append("\"\"")
                }
            } else if let value = field.value(in: c) {
                b.append(field.displayMember)
                value.write(to: &b)
            }
            if field == .sound {
                if c.soundCritical { b.append(",\"sound_critical\":true") }
                if let v = c.soundVolume {
                    b.append(",\"sound_volume\":")
                    JSONValue.double(v).write(to: &b)
                }
            }
        }
        if let e = r.expiration {
            b.append(",\"expiration\":")
            JSONValue.writeInteger(e, to: &b)
        }
        if case .object(let o) = c.userInfo, !o.isEmpty {
            b.append(",\"user_info\":")
            c.userInfo.write(to: &b)
        }
        if !c.attachments.isEmpty {
            b.append(",\"attachments\":")
            c.attachmentsValue.write(to: &b)
        }
        if case .object = condition {
            b.append(",\"condition\":")
            condition.write(to: &b)
        }
        b.append(modified ? ",\"modified\":true,\"received_at\":" : ",\"modified\":false,\"received_at\":")
        Timestamp.appendQuotedISO8601(receivedAt, to: &b)
        b.append(UInt8(ascii: "}"))
    }
}

extension ContentField {
    /// `,"key":` as the display JSON writes the field (`key` with its quotes, colon and comma).
    var displayMember: StaticString {
        switch self {
        case .title: ",\"title\":"
        case .subtitle: ",\"subtitle\":"
        case .body: ",\"body\":"
        case .sound: ",\"sound\":"
        case .badge: ",\"badge\":"
        case .threadID: ",\"thread_id\":"
        case .category: ",\"category\":"
        case .interruptionLevel: ",\"interruption_level\":"
        case .relevanceScore: ",\"relevance_score\":"
        case .targetContentID: ",\"target_content_id\":"
        case .filterCriteria: ",\"filter_criteria\":"
        }
    }
}

extension PushType {
    /// `,"push_type":"<name>","priority":` as the display JSON writes it (the priority follows).
    var displayMember: StaticString {
        switch self {
        case .alert: ",\"push_type\":\"alert\",\"priority\":"
        case .background: ",\"push_type\":\"background\",\"priority\":"
        case .location: ",\"push_type\":\"location\",\"priority\":"
        case .voip: ",\"push_type\":\"voip\",\"priority\":"
        case .complication: ",\"push_type\":\"complication\",\"priority\":"
        case .fileprovider: ",\"push_type\":\"fileprovider\",\"priority\":"
        case .mdm: ",\"push_type\":\"mdm\",\"priority\":"
        case .liveactivity: ",\"push_type\":\"liveactivity\",\"priority\":"
        case .pushtotalk: ",\"push_type\":\"pushtotalk\",\"priority\":"
        case .widgets: ",\"push_type\":\"widgets\",\"priority\":"
        case .controls: ",\"push_type\":\"controls\",\"priority\":"
        }
    }
}
