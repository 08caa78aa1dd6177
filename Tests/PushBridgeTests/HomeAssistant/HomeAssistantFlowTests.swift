import Foundation
import Testing
@testable import PushBridge

/// The bridge's Home Assistant side (MQTT discovery, events) on a real broker; the checks against a
/// real Home Assistant are in integration/homeassistant/ (`make test` runs them).
@Suite("Integration: Home Assistant discovery and events")
struct HomeAssistantFlowTests {
    static let entitlement = "entitlements: [com.apple.developer.usernotifications.filtering]"

    /// A scenario, a watcher of the discovery prefix and the event topics, and the bridge's yaml.
    struct Setup {
        let s: Scenario
        let watcher: TestClient
        let clientID: String
        let node: String
        var prefix: String { "\(s.ns)/ha" }

        static func start(version: MQTTProtocolVersion = .v5) async throws -> Setup {
            let s = try await Scenario.start(version: version)
            let clientID = uniqueName("ha")
            let node = HomeAssistantConfig.nodeID(clientID: clientID)
            let watcher = try await TestClient.connected(to: s.broker, subscriptions: [
                MQTTSubscription(filter: "\(s.ns)/ha/#", qos: 1),
                MQTTSubscription(filter: "pushbridge/\(node)/event/#", qos: 1),
            ])
            return Setup(s: s, watcher: watcher, clientID: clientID, node: node)
        }

        func yaml(routes: [String] = ["doorbell", "garage"], extraRoutes: String = "") -> String {
            s.yaml("""
                \(HomeAssistantFlowTests.entitlement)
                routes:
                \(extraRoutes)
                \(routes.map { "  - {name: \($0), topic: \"\(s.ns)/in/\($0)/+\", collapse_id: \"\($0)-{{ levels[3] }}\", alert: {title: \"\($0)\", body: \"{{ payload.msg }}\", thread_id: \($0), interruption_level: time-sensitive}}" }.joined(separator: "\n"))
                extension:
                  filters:
                    - {name: quiet, suppress: 'payload.msg == "hush"'}
                homeassistant:
                  discovery_prefix: \(s.ns)/ha
                  notify_topic: \(s.ns)/in/notify
                """, clientID: clientID)
        }

        func configs() -> [InboundMessage] {
            watcher.messages.filter { $0.topic.hasPrefix(prefix + "/") && $0.topic.hasSuffix("/config") }
        }

        /// Waits until the configs received so far satisfy `condition` (checked as messages arrive).
        func waitForConfigs(_ what: String, _ condition: @escaping @Sendable ([InboundMessage]) -> Bool) async throws {
            let prefix = prefix
            let isConfig: @Sendable (InboundMessage) -> Bool = { $0.topic.hasPrefix(prefix + "/") && $0.topic.hasSuffix("/config") }
            try await watcher.waitForMessages("\(what); have \(configs().map(\.topic))") { condition($0.filter(isConfig)) }
        }

        /// Waits until `count` messages arrived on the bridge's event topics.
        func waitForEventMessages(count: Int) async throws {
            let eventPrefix = "pushbridge/\(node)/event/"
            try await watcher.waitForMessages("\(count) event(s) on \(eventPrefix)") {
                $0.count(where: { $0.topic.hasPrefix(eventPrefix) }) == count
            }
        }

        func events() throws -> [JSONValue] {
            try watcher.messages.filter { $0.topic.hasPrefix("pushbridge/\(node)/event/") }
                .map { try JSONValue.parse($0.payload) }
        }
    }

    @Test("announces every entity on connect, and again on Home Assistant's birth message (not counted)")
    func announces() async throws {
        let t = try await Setup.start()
        let bridge = try InProcessBridge.start(yaml: t.yaml())
        try await t.s.waitUntilOnline()
        try await t.waitForConfigs("14 configs") { $0.count == 14 }
        let topics = Set(t.configs().map(\.topic))
        #expect(topics.contains("\(t.prefix)/event/\(t.node)/\(t.node)_doorbell/config"))
        #expect(topics.contains("\(t.prefix)/binary_sensor/\(t.node)/\(t.node)_connected/config"))
        #expect(topics.contains("\(t.prefix)/notify/\(t.node)/\(t.node)_notify/config"))
        let first = try #require(t.configs().first)
        #expect(first.qos == 1)
        #expect(first.property(DisplayRenderer.hopProperty) == t.clientID)
        // Retained: a late subscriber gets them all from the broker.
        let late = try await TestClient.connected(to: t.s.broker, subscriptions: [
            MQTTSubscription(filter: "\(t.prefix)/+/+/+/config", qos: 1)])
        try await late.waitForMessages("the 14 retained configs") { $0.count == 14 && $0.allSatisfy(\.retain) }
        late.stop()

        try t.watcher.publish("\(t.prefix)/status", "offline")
        try t.watcher.publish("\(t.prefix)/status", "online")
        try await t.waitForConfigs("28 configs after the birth message") { $0.count == 28 }
        let stats = try await t.s.waitForStats("a snapshot after the birth message") { _ in
            bridge.log.contains("Home Assistant is online")
        }
        #expect(total(stats, "received") == 0 && total(stats, "unrouted") == 0)
        #expect(stats["topics"]?["\(t.prefix)/status"] == nil)
        try await bridge.stop()
    }

    @Test("a delivered alert is published to its route's event entity; a suppressed one is not")
    func events() async throws {
        let t = try await Setup.start()
        let bridge = try InProcessBridge.start(yaml: t.yaml())
        try await t.s.waitUntilOnline()
        try t.s.observer.publish(t.s.input("doorbell/front"), #"{"msg":"hush"}"#)
        try t.s.observer.publish(t.s.input("doorbell/front"), #"{"msg":"Alice is at the door"}"#)
        try await t.s.waitForStats("2 decided") { total($0, "received") == 2 && $0["in_flight"] == .int(0) }
        try await t.waitForEventMessages(count: 1)
        let events = try t.events()
        let event = try #require(events.first)
        let message = try #require(t.watcher.messages.first { $0.topic.hasPrefix("pushbridge/") })
        #expect(message.topic == "pushbridge/\(t.node)/event/doorbell")
        #expect(message.qos == 1 && !message.retain)
        let id = try #require(event["id"]?.stringValue)
        #expect(event == .object([
            "event_type": .string("delivered"), "id": .string(id), "title": .string("doorbell"),
            "body": .string("Alice is at the door"), "interruption_level": .string("time-sensitive"),
            "thread_id": .string("doorbell"), "collapse_id": .string("doorbell-front"),
            "source_topic": .string(t.s.input("doorbell/front")), "route": .string("doorbell"),
        ]))
        let shown = try await t.s.waitFor(t.s.display("doorbell/front"))
        #expect(try JSONValue.parse(shown[0].payload)["id"] == .string(id))
        try await bridge.stop()
    }

    @Test("a route on Home Assistant's status topic gets its messages once; the bridge still answers the birth message")
    func statusRoute() async throws {
        let t = try await Setup.start()
        let route = "  - {name: ha-status, topic: \"\(t.prefix)/status\", input: text, alert: {title: \"HA is {{ raw }}\"}}"
        let config = try ConfigLoader.load(text: t.yaml(extraRoutes: route), path: "bridge.yml", environment: [:]).get()
        #expect(RouteSubscriptions.subscriptions(for: config).filter { $0.filter == "\(t.prefix)/status" }.count == 1)
        let bridge = try InProcessBridge.start(yaml: t.yaml(extraRoutes: route))
        try await t.s.waitUntilOnline()
        try await t.waitForConfigs("19 configs") { $0.count == 19 }
        try t.watcher.publish("\(t.prefix)/status", "offline")
        try t.watcher.publish("\(t.prefix)/status", "online")
        try await t.waitForConfigs("38 configs after the birth message") { $0.count == 38 }
        let stats = try await t.s.waitForStats("2 decided") { total($0, "received") == 2 && $0["in_flight"] == .int(0) }
        #expect(total(stats, "delivered") == 2)
        let shown = try await t.s.waitFor("\(t.s.ns)/out/\(t.prefix)/status", count: 2)
        #expect(try shown.map { jsonString(try JSONValue.parse($0.payload)["title"]) } == ["HA is offline", "HA is online"])
        try await bridge.stop()
    }

    @Test("on MQTT 3.1.1 too (no user properties): announced, the birth message handled, events published")
    func mqtt311() async throws {
        let t = try await Setup.start(version: .v311)
        let bridge = try InProcessBridge.start(yaml: t.yaml())
        try await t.s.waitUntilOnline()
        try await t.waitForConfigs("14 configs") { $0.count == 14 }
        #expect(t.configs().allSatisfy { $0.userProperties.isEmpty })
        try t.watcher.publish("\(t.prefix)/status", "online")
        try await t.waitForConfigs("28 configs after the birth message") { $0.count == 28 }
        try t.s.observer.publish(t.s.input("garage/door"), #"{"msg":"open"}"#)
        try await t.waitForEventMessages(count: 1)
        #expect(try t.events().first?["route"] == .string("garage"))
        let stats = try await t.s.waitForStats("1 decided") { total($0, "received") == 1 && $0["in_flight"] == .int(0) }
        #expect(total(stats, "delivered") == 1)
        try await bridge.stop()
    }

    @Test("configs the broker keeps for routes removed while the bridge was stopped are removed at start")
    func staleConfigsAreSwept() async throws {
        let t = try await Setup.start()
        let stale = "\(t.prefix)/sensor/\(t.node)/\(t.node)_old_received/config"
        let staleEvent = "\(t.prefix)/event/\(t.node)/\(t.node)_old/config"
        let otherNode = "\(t.prefix)/sensor/someone_else/someone_else_x/config"
        for topic in [stale, staleEvent, otherNode] { try t.watcher.publish(topic, "{}", retain: true) }
        try await t.waitForConfigs("the 3 retained configs") { $0.count == 3 }
        let bridge = try InProcessBridge.start(yaml: t.yaml())
        try await bridge.log.waitFor(line: "sweep done")
        #expect(bridge.log.contains("2 stale)"), "\(bridge.log.lines.filter { $0.contains("sweep") })")
        try await t.waitForConfigs("2 emptied") { Set($0.filter { $0.payload.isEmpty }.map(\.topic)) == [stale, staleEvent] }
        #expect(bridge.log.contains("removed 2 entities no route announces any more"))
        // The other bridge's config is untouched.
        let late = try await TestClient.connected(to: t.s.broker, subscriptions: [MQTTSubscription(filter: otherNode, qos: 1)])
        try await late.waitForMessages("the other node's retained config") { $0.count == 1 }
        #expect(late.messages.first?.payload == Array("{}".utf8))
        late.stop()
        try await bridge.stop()
    }

    @Test("a route removed by a reload gets an empty retained config for each of its entities")
    func reloadRemoves() async throws {
        let t = try await Setup.start()
        let bridge = try InProcessBridge.start(yaml: t.yaml())
        try await t.s.waitUntilOnline()
        try await t.waitForConfigs("14 configs") { $0.count == 14 }
        try await bridge.log.waitFor(line: "sweep done")
        let new = try ConfigLoader.load(text: t.yaml(routes: ["doorbell"]), path: "bridge.yml", environment: [:]).get()
        #expect(await bridge.bridge.apply(new) == .applied(warnings: []))
        let empty = { t.configs().filter { $0.payload.isEmpty } }
        try await t.waitForConfigs("5 empty configs") { $0.count(where: { $0.payload.isEmpty }) == 5 }
        #expect(Set(empty().map(\.topic)) == Set(["received", "delivered", "suppressed", "rejected"].map {
            "\(t.prefix)/sensor/\(t.node)/\(t.node)_garage_\($0)/config"
        } + ["\(t.prefix)/event/\(t.node)/\(t.node)_garage/config"]))
        // The kept ones are announced again (9 of them).
        try await t.waitForConfigs("the current set announced again") { $0.count == 14 + 5 + 9 }
        // A change of the section itself waits for a restart.
        var moved = new
        moved.homeAssistant?.deviceName = "other"
        #expect(await bridge.bridge.apply(moved) == .applied(warnings: ["the homeassistant section changed; restart pushbridge to use it"]))
        try await bridge.stop()
    }
}
