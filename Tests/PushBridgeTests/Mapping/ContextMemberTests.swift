import Testing
@testable import PushBridge

/// A message context's members read in place are the members of the whole values.
@Suite struct ContextMemberTests {
    static var contexts: [MessageContext] {
        var content = NotificationContent()
        content.title = "Doorbell"
        content.badge = 3
        content.relevanceScore = 0.5
        content.userInfo = .object(["who": .string("Alice")])
        var withContent = MessageContext(topic: "home/front/door", payload: .object(["who": .string("Alice"), "n": .int(2),
                                                                                     "drop": .bool(false), "a": .object(["b": .null])]),
                                         raw: "", properties: ["room": "hall", "x": "1"], content: content)
        withContent.condition = .object(["state": .string("raised")])
        return [withContent,
                MessageContext(topic: "t", payload: .string("text"), raw: "text"),
                MessageContext(topic: "t", payload: .array([.int(1)]), raw: "[1]"),
                MessageContext(topic: "t", payload: .null, raw: "")]
    }

    @Test("member(_:of:) is value(of:)[name] ?? null")
    func sameAsWholeValue() {
        let names = ["who", "n", "drop", "a", "missing", "", "title", "body", "badge", "relevance_score", "user_info",
                     "room", "x", "state", "0"]
        for context in Self.contexts {
            for variable in Variable.allCases where variable != .hour && variable != .weekday {
                for name in names {
                    #expect(context.member(name, of: variable) == (context.value(of: variable)[name] ?? .null),
                            "\(variable).\(name)")
                }
            }
        }
    }

    @Test("levels[-n] counts from the end of the topic, whatever its depth (docs/configuration.md, Paths)",
          arguments: ["zigbee2mqtt/hall/front_door/availability", "home/zigbee/hall/front_door/availability",
                      "a/b/c/d/e/f/hall/front_door/availability"])
    func levelsFromTheEnd(topic: String) throws {
        let context = MessageContext(topic: topic, payload: .object(["state": .string("offline")]),
                                     raw: #"{"state":"offline"}"#)
        #expect(try Template.parse("{{ levels[-2] }} {{ levels[-1] }} {{ levels[-3] }}").render(in: context)
                    == "front_door availability hall")
        let depth = topic.split(separator: "/").count
        #expect(try Expression.parse("levels[\(-depth)]").evaluate(in: context) == .string(String(topic.split(separator: "/")[0])))
        #expect(try Expression.parse("levels[\(-depth - 1)]").evaluate(in: context) == .null)
        // A condition's `active` reads them the same way (strict evaluation).
        let active = try Expression.parse(#"levels[-1] == "availability" && payload.state == "offline""#)
        #expect(active.evaluateStrictly(in: context) == .bool(true))
    }

    @Test("templates and filters read members the same way")
    func throughExpressions() throws {
        let context = Self.contexts[0]
        #expect(try Template.parse("{{ payload.who }} {{ content.title }} {{ properties.room }} {{ payload.a.b }}")
                    .render(in: context) == "Alice Doorbell hall ")
        #expect(try Expression.parse("payload.drop == false && content.badge == 3 && condition.state == 'raised'")
                    .isTrue(in: context))
    }
}
