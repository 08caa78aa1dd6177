import Testing
@testable import PushBridge

/// The display topic remembered per source topic (`TopicMemo`) is the topic the template
/// renders, for a template that reads the topic alone; any other template renders per message.
@Suite struct DisplayTopicMemoTests {
    static func renderer(_ template: String) throws -> DisplayRenderer {
        var display = DisplayConfig()
        display.topic = try Template.parse(template)
        return DisplayRenderer(display: display, deadLetter: nil, userProperties: true, hop: nil)
    }

    static func topic(_ renderer: DisplayRenderer, source: String, title: String) -> String {
        var request = NotificationRequest(id: "00000000-0000-4000-8000-000000000000", pushType: .alert, priority: 10)
        request.content.title = title
        let context = MessageContext(topic: source, payload: .null, raw: "", route: "r")
        return renderer.displayMessage(request, context: context, modified: false, receivedAt: 0).topic
    }

    @Test("topic-only templates: the same topics as rendering each time, past the memo's limits too",
          arguments: ["display/{{ topic }}", "d/{{ levels[1] }}/{{ levels | json }}", "fixed/topic"])
    func topicOnly(template: String) throws {
        let renderer = try Self.renderer(template)
        let direct = try Template.parse(template)
        let long = String(repeating: "x", count: TopicMemo.longest + 1)
        let sources = ["zigbee2mqtt/kitchen", "a/b/c", "zigbee2mqtt/kitchen", long, "t/\u{E9}", long]
            + (0..<(TopicMemo.limit + 50)).map { "home/room-\($0 % (TopicMemo.limit + 20))/sensor" }
        for source in sources {
            let expected = direct.render(in: MessageContext(topic: source, payload: .null, raw: "", route: "r"))
            let got = Self.topic(renderer, source: source, title: "t")
            if got != expected { Issue.record("\(source): \(got) ≠ \(expected)"); return }
        }
    }

    @Test("a template that reads the content renders each message's own")
    func readsContent() throws {
        let renderer = try Self.renderer("display/{{ content.title }}")
        #expect(Self.topic(renderer, source: "a/b", title: "one") == "display/one")
        #expect(Self.topic(renderer, source: "a/b", title: "two") == "display/two")
    }
}
