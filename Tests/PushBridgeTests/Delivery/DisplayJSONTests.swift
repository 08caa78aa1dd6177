import Testing
@testable import PushBridge

/// The display JSON written from constant key fragments is, byte for byte, what the general
/// `JSONWriter` writes for the same members in the documented order (docs/formats.md, "Display message").
@Suite struct DisplayJSONTests {
    /// The members written one by one with `JSONWriter` (how the display JSON was written
    /// before its keys became constants).
    static func reference(_ r: NotificationRequest, source: String, route: String,
                          modified: Bool, receivedAt: Double, condition: JSONValue = .null) -> [UInt8] {
        let c = r.content
        var w = JSONWriter(capacity: 512)
        w.beginObject()
        w.add("id", r.id)
        w.add("source_topic", source)
        w.add("route", route)
        w.add("push_type", r.pushTypeName)
        w.add("priority", .int(Int64(r.priority)))
        w.add("collapse_id", r.collapseID)
        for field in ContentField.allCases {
            if field.slot != nil {
                w.add(field.key, field == .title || field == .body ? c[text: field] ?? "" : c[text: field])
            } else if let value = field.value(in: c) {
                w.add(field.key, value)
            }
            if field == .sound {
                if c.soundCritical { w.add("sound_critical", .bool(true)) }
                if let v = c.soundVolume { w.add("sound_volume", .double(v)) }
            }
        }
        if let e = r.expiration { w.add("expiration", .int(e)) }
        if case .object(let o) = c.userInfo, !o.isEmpty { w.add("user_info", c.userInfo) }
        if case .object = condition { w.add("condition", condition) }
        w.add("modified", .bool(modified))
        w.add("received_at", timestamp: receivedAt)
        w.endObject()
        return w.bytes
    }

    static var requests: [NotificationRequest] {
        var list: [NotificationRequest] = []
        for (i, content) in HotPathTests.contents.enumerated() {
            for pushType in [nil] + PushType.allCases {
                var r = HotPathTests.request(content, pushType: pushType)
                r.priority = [10, 5, 1, 7][i % 4]
                if i == 1 { r.collapseID = "door-\"front\"" }
                if pushType == .alert { r.expiration = 1_764_000_000 }
                list.append(r)
            }
        }
        var sound = NotificationContent()
        sound.title = "t"
        sound.sound = "alarm"
        sound.soundCritical = true
        sound.soundVolume = 0.75
        sound.badge = 0
        list.append(HotPathTests.request(sound))
        sound.soundCritical = false
        sound.soundVolume = 1
        list.append(HotPathTests.request(sound))
        sound.userInfo = .object(["b": .int(2), "a": .string("x"), "é": .null, "e\u{301}": .bool(true)])
        list.append(HotPathTests.request(sound))
        // Past the writer's stack room: it moves to the heap on the way.
        sound.title = String(repeating: "\"", count: 700)
        sound.userInfo = .object(["big": .string(String(repeating: "ドア\n", count: 400)), "n": .array(Array(repeating: .int(-1), count: 300))])
        list.append(HotPathTests.request(sound))
        return list
    }

    @Test("byte for byte the JSONWriter's members in the documented order")
    func sameBytes() {
        let conditions: [JSONValue] = [.null, .object(["state": .string("raised"), "repeat": .int(2)]), .string("x")]
        for (n, r) in Self.requests.enumerated() {
            for modified in [false, true] {
                let condition = conditions[n % conditions.count]
                let source = n % 2 == 0 ? "home/front/doorbell" : "a\"b\\c/ドア"
                let at = 1_764_612_345.678 + Double(n)
                let got = DisplayRenderer.displayJSON(r, source: source, route: "r\(n)", modified: modified,
                                                      receivedAt: at, condition: condition)
                let want = Self.reference(r, source: source, route: "r\(n)", modified: modified, receivedAt: at,
                                          condition: condition)
                #expect(String(decoding: got, as: UTF8.self) == String(decoding: want, as: UTF8.self))
            }
        }
    }

    @Test("each constant key fragment is the field's key")
    func fragments() {
        for field in ContentField.allCases {
            #expect(field.displayMember.description == ",\"\(field.key)\":")
        }
        for type in PushType.allCases {
            #expect(type.displayMember.description == ",\"push_type\":\"\(type.rawValue)\",\"priority\":")
        }
    }
}
