import Foundation
import Testing
@testable import PushBridge
@testable import PushBridgeCLI

/// Pipeline decisions on device state and the issue-12 product bugs: retained state,
/// `changed` taught by it, empty payloads, the critical sound dictionary, exact integers in
/// `user_info`, and the `input: apns` push type default.
@Suite("Mapping: device state and payload shapes")
struct DeviceStateTests {
    static func pipeline(_ yaml: String) throws -> Pipeline {
        Pipeline(config: try loadConfig(yaml), logger: BridgeLogger(level: .error))
    }

    static func decide(_ p: Pipeline, _ topic: String, _ payload: String, retain: Bool = false,
                       properties: [(name: String, value: String)] = []) -> Decision {
        TryRunner.run(pipeline: p, message: InboundMessage(topic: topic, payload: Array(payload.utf8), qos: 1,
                                                            retain: retain, userProperties: properties,
                                                            receivedAt: 1_790_000_000), now: 1_790_000_000)
    }

    static func display(_ d: Decision) throws -> JSONValue { try JSONValue.parse(d.publish[0].payload) }

    static let leak = """
    entitlements: [com.apple.developer.usernotifications.filtering]
    routes:
      - name: leak
        topic: zigbee2mqtt/+
        alert: {title: "Water leak", body: "{{ levels[1] }}", interruption_level: critical}
      - name: raw-state
        topic: state/#
        retained: deliver
        input: text
        alert: {title: "{{ topic }}", body: "{{ raw }}"}
    extension:
      filters:
        # changed first: it must see every value (a filter before it that suppresses ends the chain)
        - name: once
          changed: {key: "{{ topic }}", value: "{{ payload.water_leak }}"}
          routes: [leak]
        - name: leak-only
          routes: [leak]
          suppress: 'payload.water_leak != true'
    """

    @Test("retained state is not_displayed, publishes nothing, and teaches changed")
    func retainedSkip() throws {
        let p = try Self.pipeline(Self.leak)
        defer { p.shutdown() }
        let stored = Self.decide(p, "zigbee2mqtt/kitchen", #"{"water_leak":true,"battery":97}"#, retain: true)
        #expect(stored.outcome == .notDisplayed)
        #expect(stored.rule.hasPrefix("retained state"))
        #expect(stored.publish.isEmpty && stored.decidedBy == nil)
        // the same state live (Zigbee2MQTT republishes it on start): still nothing new
        let again = Self.decide(p, "zigbee2mqtt/kitchen", #"{"water_leak":true,"battery":96}"#)
        #expect(again.outcome == .suppressed && again.decidedBy == "once")
        // the leak clears, then comes back: that is news
        #expect(Self.decide(p, "zigbee2mqtt/kitchen", #"{"water_leak":false}"#).decidedBy == "leak-only")
        #expect(Self.decide(p, "zigbee2mqtt/kitchen", #"{"water_leak":true}"#).outcome == .delivered)
        // retained garbage is not validated and never dead-lettered
        let junk = Self.decide(p, "zigbee2mqtt/hall", #"{"water_leak":true}"# + String(repeating: " ", count: 5000), retain: true)
        #expect(junk.outcome == .notDisplayed && junk.publish.isEmpty)
    }

    @Test("retained: deliver decides a retained message like a live one")
    func retainedDeliver() throws {
        let p = try Self.pipeline(Self.leak)
        defer { p.shutdown() }
        let d = Self.decide(p, "state/porch", "on", retain: true)
        #expect(d.outcome == .delivered)
    }

    @Test("an empty payload is the empty text on json and text routes, PayloadEmpty only for apns")
    func emptyPayloads() throws {
        let p = try Self.pipeline("""
        routes:
          - {name: j, topic: j/#, alert: {title: "cleared", body: "[{{ raw }}][{{ payload }}]"}}
          - {name: t, topic: t/#, input: text, alert: {title: "cleared", body: "[{{ raw }}]"}}
          - {name: a, topic: a/#, input: apns}
        dead_letter: {topic: "dead/{{ topic }}"}
        """)
        defer { p.shutdown() }
        let j = Self.decide(p, "j/x", "")
        #expect(j.outcome == .delivered && j.request?.content.body == "[][]")
        #expect(Self.decide(p, "t/x", "").request?.content.body == "[]")
        let a = Self.decide(p, "a/x", "")
        #expect(a.outcome == .rejected && a.rejection?.reason == .payloadEmpty)
    }

    static let critical = #"{"aps":{"alert":{"title":"Leak","body":"Kitchen"},"sound":{"critical":1,"name":"default","volume":0.8}},"room":"kitchen"}"#

    @Test("Apple's critical sound dictionary is kept in the request, format apns and the extension wire")
    func criticalSound() throws {
        for format in ["json", "apns"] {
            let p = try Self.pipeline("""
            routes: [{name: a, topic: a/#, input: apns}]
            display: {format: \(format)}
            """)
            defer { p.shutdown() }
            let d = Self.decide(p, "a/x", Self.critical, properties: [("apns-push-type", "alert")])
            let r = try #require(d.request)
            #expect(r.content.sound == "default" && r.content.soundCritical && r.content.soundVolume == 0.8)
            #expect(r.apnsBody["aps"]?["sound"] == .object(["critical": .int(1), "name": .string("default"), "volume": .double(0.8)]))
            let shown = try Self.display(d)
            if format == "apns" {
                #expect(shown["aps"]?["sound"] == .object(["critical": .int(1), "name": .string("default"), "volume": .double(0.8)]))
            } else {
                #expect(shown["sound"] == .string("default"))
                #expect(shown["sound_critical"] == .bool(true))
                #expect(shown["sound_volume"] == .double(0.8))
            }
            #expect(ExtensionWire.json(r.content)["sound"] == r.apnsBody["aps"]?["sound"])
            let back = try ExtensionWire.content(from: ExtensionWire.json(r.content))
            #expect(back == r.content, "the dictionary survives the round trip to a child process")
        }
        // a plain sound stays a string
        var plain = NotificationContent()
        plain.sound = "chime.caf"
        #expect(plain.soundJSON == .string("chime.caf"))
    }

    @Test("a route's alert.sound may be the critical mapping; bad parts are positioned errors")
    func routeCriticalSound() throws {
        let p = try Self.pipeline("""
        routes:
          - name: leak
            topic: leak/#
            alert:
              title: Leak
              sound: {name: default, critical: true, volume: 1.0}
        """)
        defer { p.shutdown() }
        let r = try #require(Self.decide(p, "leak/x", "{}").request)
        #expect(r.apnsBody["aps"]?["sound"] == .object(["critical": .int(1), "name": .string("default"), "volume": .double(1)]))
        let errors = configErrors("""
        routes:
          - topic: a/#
            alert: {sound: {name: x, critical: sometimes, volume: 2, loud: yes}}
        """)
        #expect(errors.contains { $0.contains("'critical'") }, "\(errors)")
        #expect(errors.contains { $0.contains("'volume' must be a number from 0 to 1") }, "\(errors)")
        #expect(errors.contains { $0.contains("unknown key 'loud'") }, "\(errors)")
    }

    @Test("a set filter makes the sound critical")
    func setCriticalSound() throws {
        let p = try Self.pipeline("""
        routes: [{name: leak, topic: leak/#, alert: {title: Leak}}]
        extension:
          filters:
            - name: critical
              set: {interruption_level: critical, sound_critical: "{{ payload.water_leak }}", sound_volume: "0.9"}
        """)
        defer { p.shutdown() }
        let r = try #require(Self.decide(p, "leak/x", #"{"water_leak":true}"#).request)
        #expect(r.apnsBody["aps"]?["sound"] == .object(["critical": .int(1), "name": .string("default"), "volume": .double(0.9)]))
        let quiet = try #require(Self.decide(p, "leak/x", #"{"water_leak":false}"#).request)
        #expect(quiet.content.soundCritical == false)
        #expect(quiet.apnsBody["aps"]?["sound"] == nil, "no sound without a critical one and no sound: the volume alone adds none")
    }

    @Test("the UN API's critical sounds")
    func unCriticalSounds() {
        let content = UNMutableNotificationContent()
        content.title = "Leak"
        content.sound = .defaultCritical
        #expect(content.sound?.isCritical == true && content.sound?.storedName == "default")
        content.sound = .defaultCriticalSound(withAudioVolume: 0.8)
        #expect(content.sound?.criticalVolume == 0.8)
        content.sound = .criticalSoundNamed(UNNotificationSoundName("siren.caf"), withAudioVolume: 2)
        #expect(content.sound == UNNotificationSound.criticalSoundNamed("siren.caf", withAudioVolume: 1))
        content.sound = .default
        #expect(content.sound?.isCritical == false && content.sound?.criticalVolume == nil)
    }

    @Test("integers beyond Int64 pass through user_info and templates with all their digits")
    func exactIntegers() throws {
        let p = try Self.pipeline("""
        routes: [{name: j, topic: j/#, alert: {title: "{{ payload.id }}"}}]
        """)
        defer { p.shutdown() }
        let d = Self.decide(p, "j/x", #"{"id":9999999999999999999,"list":[123456789012345678901234567890]}"#)
        let text = String(decoding: d.publish[0].payload, as: UTF8.self)
        #expect(text.contains(#""title":"9999999999999999999""#), "\(text)")
        #expect(text.contains(#""user_info":{"id":9999999999999999999,"list":[123456789012345678901234567890]}"#), "\(text)")
        // and through the Swift extension API's userInfo
        let info = UserInfoBridge.dictionary(from: try JSONValue.parse(#"{"id":9999999999999999999}"#))
        #expect(UserInfoBridge.json(from: info) == .object(["id": .bigInt("9999999999999999999")]))
    }

    @Test("input apns: a route's explicit push_type applies when the message has no apns-push-type")
    func apnsPushTypeDefault() throws {
        let p = try Self.pipeline("""
        routes:
          - {name: ha, topic: ha/#, input: apns, push_type: alert, collapse_id: "ha-{{ levels[1] }}"}
          - {name: legacy, topic: legacy/#, input: apns}
        """)
        defer { p.shutdown() }
        let body = #"{"aps":{"alert":{"title":"Door","body":"open"}}}"#
        let ha = Self.decide(p, "ha/door", body)
        #expect(ha.request?.pushType == .alert && ha.request?.collapseID == "ha-door")
        #expect(try Self.display(ha)["push_type"] == .string("alert"))
        let bg = Self.decide(p, "ha/door", #"{"aps":{"content-available":1}}"#, properties: [("apns-push-type", "background")])
        #expect(bg.outcome == .notDisplayed && bg.request?.priority == 5, "the property still wins")
        let legacy = Self.decide(p, "legacy/x", body)
        #expect(legacy.request?.pushType == nil)
        #expect(try Self.display(legacy)["push_type"] == .string("none"))
    }
}
