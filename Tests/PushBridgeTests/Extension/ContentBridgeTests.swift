import Foundation
import Testing
@testable import PushBridge

@Suite("UN* content wrappers")
struct ContentBridgeTests {
    static var full: NotificationContent {
        var c = NotificationContent()
        c.title = "T"
        c.subtitle = "S"
        c.body = "B"
        c.sound = "ding.caf"
        c.badge = 7
        c.threadID = "thread"
        c.category = "CAT"
        c.interruptionLevel = "time-sensitive"
        c.relevanceScore = 0.25
        c.targetContentID = "target"
        c.filterCriteria = "work"
        c.attachments = [NotificationAttachment(identifier: "a", type: "image/png", size: 3, file: "/tmp/a.png")]
        c.userInfo = .object(["n": .int(1), "d": .double(1.5), "b": .bool(true), "s": .string("x"),
                              "null": .null, "list": .array([.int(2), .string("y")]),
                              "obj": .object(["deep": .bool(false)])])
        return c
    }

    @Test func readsEveryField() {
        let content = UNNotificationContent(Self.full)
        #expect(content.title == "T" && content.subtitle == "S" && content.body == "B")
        #expect(content.sound == UNNotificationSound(named: "ding.caf"))
        #expect(content.badge == NSNumber(value: 7))
        #expect(content.threadIdentifier == "thread" && content.categoryIdentifier == "CAT")
        #expect(content.interruptionLevel == .timeSensitive)
        #expect(content.relevanceScore == 0.25)
        #expect(content.targetContentIdentifier == "target" && content.filterCriteria == "work")
        #expect(content.attachments.map(\.url.absoluteString) == ["file:///tmp/a.png"])
        #expect(content.attachments.map(\.identifier) == ["a"] && content.attachments.map(\.typeHint) == ["public.png"])
        #expect(content.userInfo["s"] as? String == "x")
        #expect(content.userInfo["n"] as? Int == 1)
        #expect(content.userInfo["b"] as? Bool == true)
        #expect((content.userInfo["obj"] as? [AnyHashable: Any])?["deep"] as? Bool == false)
    }

    @Test func emptyContentIsAppleEmpty() {
        let empty = UNNotificationContent()
        #expect(empty.notificationContent.isEmpty)
        #expect(empty.title == "" && empty.sound == nil && empty.badge == nil)
        #expect(empty.interruptionLevel == .active)
    }

    @Test func copiesKeepTheValueAndMutableCopiesAreIndependent() {
        let original = UNNotificationContent(Self.full)
        let copy = original.copy() as? UNNotificationContent
        #expect(copy?.notificationContent == Self.full)
        #expect(!(copy is UNMutableNotificationContent))
        guard let mutable = original.mutableCopy() as? UNMutableNotificationContent else {
            Issue.record("mutableCopy must give UNMutableNotificationContent"); return
        }
        #expect(mutable.notificationContent == Self.full, "an untouched mutable copy is unmodified")
        mutable.title = "Changed"
        mutable.badge = nil
        mutable.sound = .default
        mutable.interruptionLevel = .critical
        mutable.relevanceScore = 3
        mutable.userInfo = ["added": 2, "nested": ["a": [1, "two", NSNull()]]]
        #expect(original.title == "T", "the original is not affected")
        let c = mutable.notificationContent
        #expect(c.title == "Changed" && c.badge == nil && c.sound == "default")
        #expect(c.interruptionLevel == "critical" && c.relevanceScore == 1)
        #expect(c.userInfo == .object(["added": .int(2),
                                       "nested": .object(["a": .array([.int(1), .string("two"), .null])])]))
        let frozen = mutable.copy() as? UNNotificationContent
        #expect(!(frozen is UNMutableNotificationContent) && frozen?.notificationContent == c)
    }

    @Test func settingEmptyTextOnAnAbsentFieldKeepsItAbsent() {
        let mutable = UNMutableNotificationContent()
        mutable.subtitle = ""
        mutable.threadIdentifier = ""
        #expect(mutable.notificationContent == NotificationContent())
        mutable.body = "x"
        mutable.body = ""
        #expect(mutable.notificationContent.body == "")
        #expect(!mutable.notificationContent.hasAlertText)
    }

    @Test func userInfoRoundTripsThroughAny() {
        let value = Self.full.userInfo
        #expect(UserInfoBridge.json(from: UserInfoBridge.dictionary(from: value)) == value)
        let foreign: [AnyHashable: Any] = ["i64": Int64(5), "f": Float(0.5), "u": UInt(3), "num": NSNumber(value: 2.5),
                                           "nsbool": NSNumber(value: true), "opt": Optional<Int>.none as Any,
                                           "strdict": ["k": 1] as [String: Any], 3: "int key"]
        #expect(UserInfoBridge.json(from: foreign) == .object([
            "i64": .int(5), "f": .double(0.5), "u": .int(3), "num": .double(2.5), "nsbool": .bool(true),
            "opt": .null, "strdict": .object(["k": .int(1)]), "3": .string("int key"),
        ]))
        #expect(UserInfoBridge.dictionary(from: .string("text")).isEmpty)
    }

    @Test func interruptionLevelNames() {
        #expect(UNNotificationInterruptionLevel.allCases.map(\.name) == InterruptionLevel.allCases.map(\.rawValue))
        #expect(UNNotificationInterruptionLevel(name: "loud") == nil)
        #expect(UNNotificationInterruptionLevel(name: nil) == nil)
    }
}

@Suite("External extension wire format")
struct ExtensionWireTests {
    @Test func requestLineHasTheSpecShape() throws {
        var content = NotificationContent()
        content.title = "T"
        content.badge = 1
        content.userInfo = .object(["a": .int(1)])
        let request = NotificationRequest(id: "abc", pushType: nil, priority: 5, mutableContent: true, content: content)
        let line = ExtensionWire.requestLine(id: "abc#1", request: request,
                                             context: StageFixtures.context(topic: "t/1", route: "r"), content: content)
        #expect(!line.contains("\n"))
        #expect(try JSONValue.parse(line) == .object([
            "id": .string("abc#1"), "topic": .string("t/1"), "route": .string("r"),
            "push_type": .string("none"), "priority": .int(5),
            "content": .object(["title": .string("T"), "badge": .int(1), "user_info": .object(["a": .int(1)])]),
        ]))
        #expect(try JSONValue.parse(ExtensionWire.timeWillExpireLine(id: "x"))
                == .object(["id": .string("x"), "event": .string("time_will_expire")]))
    }

    @Test func emptyAnswerIsEmptyContent() throws {
        let (id, content) = try ExtensionWire.answer(#"{"id":"q","content":{}}"#)
        #expect(id == "q" && content == NotificationContent() && content.isEmpty)
    }

    @Test func answerReadsEveryMember() throws {
        let line = #"{"id":"q","content":{"title":"T","subtitle":null,"body":"B","sound":"default","badge":2.0,"thread_id":"th","category":"c","interruption_level":"passive","relevance_score":2,"target_content_id":"x","filter_criteria":"f","attachments":["u"],"user_info":[1]}}"#
        let (_, c) = try ExtensionWire.answer(line)
        #expect(c.title == "T" && c.subtitle == nil && c.body == "B" && c.sound == "default" && c.badge == 2)
        #expect(c.threadID == "th" && c.category == "c" && c.interruptionLevel == "passive" && c.relevanceScore == 1)
        #expect(c.targetContentID == "x" && c.filterCriteria == "f" && c.attachments.map(\.identifier) == ["u"])
        #expect(c.userInfo == .array([.int(1)]))
    }

    @Test(arguments: [
        (#"{"id":"q","content":{"title":5}}"#, "q"),
        (#"{"id":"q","content":{"badge":"two"}}"#, "q"),
        (#"{"id":"q","content":{"interruption_level":"loud"}}"#, "q"),
        (#"{"id":"q","content":{"attachments":[1]}}"#, "q"),
        (#"{"id":"q","content":"x"}"#, "q"),
        (#"{"id":"q"}"#, "q"),
        (#"{"id": "q", oops"#, "q"),
        (#"{"content":{}}"#, nil),
        (#"[1,2]"#, nil),
        ("hello", nil),
    ] as [(String, String?)])
    func garbageIsReportedWithItsIDWhenVisible(line: String, id: String?) {
        do {
            _ = try ExtensionWire.answer(line)
            Issue.record("accepted garbage: \(line)")
        } catch {
            #expect(error.id == id)
        }
    }
}
