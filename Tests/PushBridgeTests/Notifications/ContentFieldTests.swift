import Testing
@testable import PushBridge

/// The one table of content fields (issue 13): every row round-trips through every
/// representation it drives, so a new row that one of them forgets fails here.
@Suite struct ContentFieldTests {
    /// A valid value of the field's kind, as the content holds it and as text.
    static func sample(_ field: ContentField) -> (value: JSONValue, text: String) {
        switch field.kind {
        case .text: (.string("v \(field.key)"), "v \(field.key)")
        case .level: (.string("time-sensitive"), "time-sensitive")
        case .integer: (.int(7), "7")
        case .score: (.double(0.25), "0.25")
        }
    }

    @Test(arguments: ContentField.allCases)
    func roundTripsThroughEveryRepresentation(field: ContentField) throws {
        let (value, text) = Self.sample(field)
        var content = NotificationContent()
        field.set(value, in: &content)
        #expect(field.value(in: content) == value)
        #expect(ContentField(key: field.key) == field)
        // Expressions' `content`.
        #expect(content.jsonValue[field.key] == value)
        // The extension wire, both ways.
        #expect(try ExtensionWire.content(from: ExtensionWire.json(content)) == content)
        // The APNs body, both ways.
        var request = NotificationRequest(id: "3f1c8a52-0000-4000-8000-000000000001", pushType: .alert, priority: 10)
        request.content = content
        let aps = try #require(request.apnsBody["aps"])
        #expect((field.inAlert ? aps["alert"] : aps)?[field.apsKey] == value)
        #expect(try APNsBodyReader.read(request.apnsBody).content == content)
        // The display message.
        let display = try JSONValue.parse(DisplayRenderer.displayJSON(request, source: "s", route: "r",
                                                                        modified: false, receivedAt: 0))
        #expect(display[field.key] == value)
        // The `set` filter.
        let context = MessageContext(topic: "t", payload: .null, raw: "")
        let (set, verdict) = ContentSetter.apply([(field.key, try Template.parse(text))], to: context)
        #expect(field.value(in: set) == value && verdict == "set \(field.key)")
        // A route's `alert:` key, mapped, and described.
        let yaml = "routes:\n  - topic: a\n    alert:\n      \(field.key): \"\(text)\"\n"
        let config = try loadConfig(yaml)
        #expect(config.routes[0].alert[field] != nil)
        #expect(config.describe().contains("\(field.key)=\"\(text)\""))
        let mapped = RequestMapper().map(InboundMessage(topic: "a", payload: Array("{}".utf8), receivedAt: 0),
                                         route: config.routes[0], id: request.id, now: 0)
        #expect(try field.value(in: mapped.request.get().content) == value)
    }

    @Test func keysAreTheDocumentedOnes() {
        #expect(ContentField.allCases.map(\.key) == ["title", "subtitle", "body", "sound", "badge", "thread_id", "category",
                                                    "interruption_level", "relevance_score", "target_content_id",
                                                    "filter_criteria"])
        #expect(ConfigReader.setFields == ["title", "subtitle", "body", "sound", "sound_critical", "sound_volume", "badge",
                                           "thread_id", "category", "interruption_level", "relevance_score",
                                           "target_content_id", "filter_criteria", "user_info", "attachments"])
        #expect(ContentField.threadID.apsKey == "thread-id" && ContentField.relevanceScore.apsKey == "relevance-score")
        let slots = ContentField.allCases.compactMap(\.slot)
        #expect(Set(slots) == Set(0..<NotificationContent.Fields().texts.count) && slots.count == Set(slots).count)
        // `hasAlertText` reads the alert's three texts at these slots.
        #expect(ContentField.title.slot == 0 && ContentField.subtitle.slot == 1 && ContentField.body.slot == 2)
    }
}
