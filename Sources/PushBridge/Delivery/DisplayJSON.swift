/// The display JSON of SPEC section 8 (`format: json`), written straight into bytes.
///
/// The keys never change: each one, with its quotes, its colon and the comma before it, is
/// a constant (`,"title":`), so a message writes only its values. The key order is SPEC
/// section 8's; `DisplayJSONTests` holds the result byte for byte against the general
/// `JSONWriter` writing the same members.
extension DisplayRenderer {
    /// The display JSON of SPEC section 8 for `r`, keys in the documented order.
    public static func displayJSON(_ r: NotificationRequest, source: String, route: String,
                                   modified: Bool, receivedAt: Double, condition: JSONValue = .null) -> [UInt8] {
        let c = r.content
        var b: [UInt8] = []
        b.reserveCapacity(512)
        b.put("{\"id\":")
        JSONValue.writeString(r.id, into: &b)
        b.put(",\"source_topic\":")
        JSONValue.writeString(source, into: &b)
        b.put(",\"route\":")
        JSONValue.writeString(route, into: &b)
        b.put(r.pushType?.displayMember ?? ",\"push_type\":\"none\",\"priority\":")
        JSONValue.writeInteger(Int64(r.priority), into: &b)
        if let collapseID = r.collapseID {
            b.put(",\"collapse_id\":")
            JSONValue.writeString(collapseID, into: &b)
        }
        for field in ContentField.allCases {
            if field.slot != nil {
                if let text = c[text: field] {
                    b.put(field.displayMember)
                    JSONValue.writeString(text, into: &b)
                } else if field == .title || field == .body {
                    // Always there (SPEC section 8), `""` when absent.
                    b.put(field.displayMember)
                    b.put("\"\"")
                }
            } else if let value = field.value(in: c) {
                b.put(field.displayMember)
                value.write(into: &b)
            }
            if field == .sound {
                if c.soundCritical { b.put(",\"sound_critical\":true") }
                if let v = c.soundVolume {
                    b.put(",\"sound_volume\":")
                    JSONValue.double(v).write(into: &b)
                }
            }
        }
        if let e = r.expiration {
            b.put(",\"expiration\":")
            JSONValue.writeInteger(e, into: &b)
        }
        if case .object(let o) = c.userInfo, !o.isEmpty {
            b.put(",\"user_info\":")
            c.userInfo.write(into: &b)
        }
        if case .object = condition {
            b.put(",\"condition\":")
            condition.write(into: &b)
        }
        b.put(modified ? ",\"modified\":true,\"received_at\":" : ",\"modified\":false,\"received_at\":")
        Timestamp.appendQuotedISO8601(receivedAt, to: &b)
        b.append(UInt8(ascii: "}"))
        return b
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

extension [UInt8] {
    /// Appends the bytes of a constant.
    @inline(__always)
    fileprivate mutating func put(_ s: StaticString) {
        append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }
}
