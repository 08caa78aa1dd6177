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
}
