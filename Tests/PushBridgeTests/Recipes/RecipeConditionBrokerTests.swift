import Foundation
import Testing
@testable import PushBridge
@testable import PushBridgeCLI

/// The recipes' conditions on a running bridge and a real mosquitto, with a fake clock for
/// the timer: the recipe's own `bridge.yml` (broker, client id and ack topic from the
/// environment, as a user runs it), each condition raised, repeated, acknowledged and
/// cleared. `RecipeConditionTests` runs the same conditions through the samples offline;
/// here the acknowledgement arrives on the ack topic and the display messages on the broker.
///
/// Payloads: ESPHome's `<node>/status` birth "online" and will/shutdown "offline"
/// (esphome/esphome `esphome/components/mqtt/__init__.py` validate_config); Shelly Gen2+
/// component status on `<topic_prefix>/status/<component>:<id>` with `{"id","alarm","mute"}`
/// (shelly-api-docs.shelly.cloud gen2 ComponentsAndServices Smoke and Flood).
@Suite("Recipe conditions on a real broker")
struct RecipeConditionBrokerTests {
    /// A recipe's bridge in this process on a broker of its own, an observer on `display/#`.
    struct Running {
        let broker: TestBroker
        let observer: TestClient
        let clock: FakeWallClock
        let bridge: InProcessBridge
        let ackTopic: String

        /// Stores `retained` on the broker, then starts the recipe's bridge.
        static func start(_ recipe: String, retained: [(topic: String, payload: String)] = []) async throws -> Running {
            let broker = try TestBroker()
            let observer = try await TestClient.connected(to: broker, subscriptions: [
                MQTTSubscription(filter: "display/#", qos: 1),
            ])
            for r in retained { try observer.publish(r.topic, r.payload, retain: true) }
            let retainedCount = retained.count
            try await observer.waitForPublished("the retained messages acknowledged") { $0.count == retainedCount }
            let ackTopic = uniqueName("ack")
            let environment = ["MQTT_HOST": "127.0.0.1", "MQTT_PORT": String(broker.port),
                               "PUSHBRIDGE_CLIENT_ID": uniqueName("recipe"), "PUSHBRIDGE_ACK_TOPIC": ackTopic]
            let path = RecipeTests.examples.appendingPathComponent("\(recipe)/bridge.yml").path
            let config = try ConfigLoader.load(path: path, environment: environment).get()
            let clock = FakeWallClock(1_800_000_000)
            let bridge = try InProcessBridge.start(config: config, clock: clock.stageClock, level: .info)
            return Running(broker: broker, observer: observer, clock: clock, bridge: bridge, ackTopic: ackTopic)
        }

        /// Waits until the broker holds a subscription of the bridge that `topic` matches
        /// (whichever route's filter it is: a filter another covers may not be subscribed).
        func waitUntilSubscribed(to topic: String) async throws {
            let id = bridge.bridge.config.broker.clientID
            try await eventually("a subscription of \(id) matching \(topic); log: \(bridge.log.lines.suffix(5))",
                                 timeout: .seconds(30)) {
                broker.subscriptions().contains { $0.clientID == id && TopicFilter.matches(filter: $0.filter, topic: topic) }
            }
        }

        /// The display messages on `topic` once there are `count`, parsed.
        func shown(on topic: String, count: Int) async throws -> [JSONValue] {
            try await observer.waitForMessages("\(count) display message(s) on \(topic)", timeout: .seconds(20)) {
                $0.lazy.filter { $0.topic == topic }.count >= count
            }.filter { $0.topic == topic }.map { try JSONValue.parse($0.payload) }
        }

        /// Moves the fake clock on and runs the repeats and steps due then.
        func advance(minutes: Double) {
            clock.advance(minutes * 60)
            bridge.fireConditions()
        }

        /// Acknowledges `alertID` on the ack topic and waits until the bridge holds it acknowledged.
        func acknowledge(_ alertID: String) async throws {
            try observer.publish(ackTopic, #"{"alert_id":"\#(alertID)","by":"alice"}"#)
            try await eventually("\(alertID) acknowledged") {
                bridge.bridge.flow.conditions.active.contains { $0.alertID == alertID && $0.acknowledged }
            }
        }

        func counts(_ route: String) -> ConditionCounts? { bridge.bridge.flow.conditions.counts[route] }

        func stop() async throws {
            try await bridge.stop()
            observer.stop(flushTimeout: .zero)
            broker.stop()
        }
    }

    static func state(_ display: JSONValue) -> String { jsonString(display["condition"]?["state"]) }

    @Test("esphome: a node offline is raised, repeated, acknowledged, and back online withdrawn with an all-clear")
    func nodeOffline() async throws {
        let r = try await Running.start("esphome")
        try await r.waitUntilSubscribed(to: "freezer-monitor/status")
        let display = "display/esphome/esphome-status"
        try r.observer.publish("freezer-monitor/status", "offline", retain: true)  // the will, retained
        var shown = try await r.shown(on: display, count: 1)
        let alertID = jsonString(shown[0]["condition"]?["alert_id"])
        #expect(jsonString(shown[0]["title"]) == "freezer-monitor is offline" && Self.state(shown[0]) == "raised")
        #expect(jsonString(shown[0]["interruption_level"]) == "time-sensitive")
        #expect(jsonString(shown[0]["collapse_id"]) == "esphome-freezer-monitor-status")
        try r.observer.publish("freezer-monitor/status", "offline", retain: true)  // again: state, not news
        r.advance(minutes: 30)
        shown = try await r.shown(on: display, count: 2)
        #expect(Self.state(shown[1]) == "repeated" && shown[1]["condition"]?["repeat"] == .int(1))
        #expect(jsonString(shown[1]["condition"]?["alert_id"]) == alertID)
        try await r.acknowledge(alertID)
        r.advance(minutes: 30)  // acknowledged: no repeat
        r.advance(minutes: 30)
        try r.observer.publish("freezer-monitor/status", "online", retain: true)  // the birth message
        shown = try await r.shown(on: display, count: 4)
        #expect(jsonString(shown[2]["type"]) == "withdraw" && jsonString(shown[2]["alert_id"]) == alertID)
        #expect(jsonString(shown[2]["reason"]) == "cleared")
        #expect(jsonString(shown[3]["title"]) == "freezer-monitor is back online" && Self.state(shown[3]) == "cleared")
        #expect(jsonString(shown[3]["interruption_level"]) == "passive")
        #expect(jsonString(shown[3]["collapse_id"]) == "esphome-freezer-monitor-status")
        #expect(r.observer.messages.filter { $0.topic == display }.count == 4)
        let counts = try #require(r.counts("esphome-status"))
        #expect(counts.raised == 1 && counts.repeated == 1 && counts.acknowledged == 1 && counts.cleared == 1
                && counts.active == 0)
        try await r.stop()
    }

    @Test("esphome: a retained offline found at start raises, a retained online raises nothing")
    func retainedOfflineAtStart() async throws {
        // Both nodes' last words are on the broker before the bridge subscribes.
        let r = try await Running.start("esphome", retained: [("cellar-pump/status", "offline"),
                                                              ("freezer-monitor/status", "online")])
        let display = "display/esphome/esphome-status"
        var shown = try await r.shown(on: display, count: 1)
        #expect(jsonString(shown[0]["source_topic"]) == "cellar-pump/status" && Self.state(shown[0]) == "raised")
        #expect(jsonString(shown[0]["title"]) == "cellar-pump is offline")
        // The pump comes back: withdraw and all-clear; the freezer node was never raised.
        try r.observer.publish("cellar-pump/status", "online", retain: true)
        shown = try await r.shown(on: display, count: 3)
        #expect(jsonString(shown[1]["type"]) == "withdraw" && jsonString(shown[2]["title"]) == "cellar-pump is back online")
        #expect(r.counts("esphome-status")?.raised == 1 && r.counts("esphome-status")?.active == 0)
        try await r.stop()
    }

    /// A Shelly Gen2+ alarm component and what the recipe does with it.
    struct Alarm: Sendable, CustomTestStringConvertible {
        var route: String
        var topic: String
        var title: String
        var every: Double  // minutes between repeats
        var stepAfter: Double  // minutes from the raise to the escalation step
        var testDescription: String { route }
    }

    static let alarms = [
        Alarm(route: "shelly-smoke", topic: "smoke-hallway/status/smoke:0", title: "Smoke: smoke-hallway",
              every: 5, stepAfter: 15),
        Alarm(route: "shelly-flood", topic: "flood-utility/status/flood:0", title: "Water leak: flood-utility",
              every: 10, stepAfter: 30),
    ]

    /// `+/status/+` (shelly-status) covers the alarm routes' filters: the bridge subscribes to
    /// it alone and the first matching route, the alarm's, decides each status once.
    @Test("tasmota-shelly: a Gen2+ alarm is raised, muting changes nothing, repeated, escalated, acknowledged, withdrawn",
          arguments: alarms)
    func shellyAlarm(_ alarm: Alarm) async throws {
        let r = try await Running.start("tasmota-shelly")
        try await r.waitUntilSubscribed(to: alarm.topic)
        let display = "display/plugs/\(alarm.route)"
        try r.observer.publish(alarm.topic, #"{"id":0,"alarm":true,"mute":false}"#)
        var shown = try await r.shown(on: display, count: 1)
        let alertID = jsonString(shown[0]["condition"]?["alert_id"])
        #expect(jsonString(shown[0]["title"]) == alarm.title && Self.state(shown[0]) == "raised")
        #expect(jsonString(shown[0]["interruption_level"]) == "critical" && jsonString(shown[0]["sound"]) == "default")
        try r.observer.publish(alarm.topic, #"{"id":0,"alarm":true,"mute":true}"#)  // the siren muted: still raised
        var minutes = 0.0
        var repeats = 0
        while minutes + alarm.every < alarm.stepAfter {
            r.advance(minutes: alarm.every)
            minutes += alarm.every
            repeats += 1
        }
        shown = try await r.shown(on: display, count: 1 + repeats)
        #expect(shown.dropFirst().map(Self.state) == Array(repeating: "repeated", count: repeats))
        r.advance(minutes: alarm.stepAfter - minutes)  // the step
        shown = try await r.shown(on: display, count: 2 + repeats)
        let step = shown[1 + repeats]
        #expect(Self.state(step) == "escalated" && step["condition"]?["step"] == .int(1))
        #expect(jsonString(step["title"]) == "Still: \(alarm.title)" && step["sound_critical"] == .bool(true))
        try await r.acknowledge(alertID)
        r.advance(minutes: alarm.every)  // acknowledged: no repeat
        try r.observer.publish(alarm.topic, #"{"id":0,"alarm":false,"mute":false}"#)
        shown = try await r.shown(on: display, count: 3 + repeats)
        let withdraw = shown[2 + repeats]
        #expect(withdraw == .object(["type": .string("withdraw"), "alert_id": .string(alertID),
                                      "collapse_id": .string("\(alarm.route)-\(alarm.topic.split(separator: "/")[0])"),
                                      "source_topic": .string(alarm.topic), "route": .string(alarm.route),
                                      "reason": .string("cleared")]))
        #expect(r.observer.messages.filter { $0.topic == display }.count == 3 + repeats)
        let counts = try #require(r.counts(alarm.route))
        #expect(counts.raised == 1 && counts.repeated == repeats && counts.escalated == 1 && counts.acknowledged == 1
                && counts.cleared == 1 && counts.active == 0)
        try await r.stop()
    }
}
