import Testing
@testable import PushBridge

@Suite struct AlertEventTests {
    @Test func everyKeyInSpecOrder() {
        var c = NotificationContent()
        c.title = "Leak"
        c.subtitle = "kitchen"
        c.body = "Water detected"
        c.interruptionLevel = "critical"
        c.threadID = "water"
        c.sound = "default"
        c.soundCritical = true
        let r = NotificationRequest(id: "6f1c2b9e-4d3a-4c2b-9a51-2f0e8d7c6b5a", pushType: .alert, priority: 10,
                                    collapseID: "leak-kitchen", content: c)
        let text = String(decoding: AlertEvent.payload(r, route: "leak", sourceTopic: "zigbee2mqtt/leak/kitchen"), as: UTF8.self)
        #expect(text == #"{"event_type":"delivered","id":"6f1c2b9e-4d3a-4c2b-9a51-2f0e8d7c6b5a","title":"Leak","subtitle":"kitchen","body":"Water detected","interruption_level":"critical","thread_id":"water","collapse_id":"leak-kitchen","sound_critical":true,"source_topic":"zigbee2mqtt/leak/kitchen","route":"leak"}"#)
    }

    @Test func keysWithoutAValueAreLeftOut() {
        var c = NotificationContent()
        c.body = "hi"
        c.sound = "default"  // a sound, but not the critical one
        let r = NotificationRequest(id: "x", pushType: .alert, priority: 10, content: c)
        let text = String(decoding: AlertEvent.payload(r, route: "r", sourceTopic: "a/b"), as: UTF8.self)
        #expect(text == #"{"event_type":"delivered","id":"x","body":"hi","source_topic":"a/b","route":"r"}"#)
    }

    @Test func attachmentsAsTheDisplayMessageHasThem() {
        var c = NotificationContent()
        c.title = "Person at the door"
        c.attachments = [
            NotificationAttachment(identifier: "snapshot", type: "image/jpeg", size: 48213, file: "/var/lib/pushbridge/attachments/t/snapshot.jpg",
                                   url: "https://home.example.com/attachments/0123456789abcdef0123456789abcdef/snapshot.jpg"),
            NotificationAttachment(identifier: "chime", type: "audio/mpeg", size: 9000, file: "/var/lib/pushbridge/attachments/t/chime.mp3"),
        ]
        let r = NotificationRequest(id: "x", pushType: .alert, priority: 10, content: c)
        let text = String(decoding: AlertEvent.payload(r, route: "door", sourceTopic: "frigate/reviews"), as: UTF8.self)
        #expect(text == #"{"event_type":"delivered","id":"x","title":"Person at the door","source_topic":"frigate/reviews","route":"door","attachments":[{"identifier":"snapshot","size":48213,"type":"image/jpeg","url":"https://home.example.com/attachments/0123456789abcdef0123456789abcdef/snapshot.jpg"},{"identifier":"chime","size":9000,"type":"audio/mpeg"}]}"#)
        #expect(!text.contains("/var/lib"), "never the stored file's path")
    }
}
