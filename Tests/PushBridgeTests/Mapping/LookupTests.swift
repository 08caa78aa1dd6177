import Foundation
import Testing
@testable import PushBridge
@testable import PushBridgeCLI

/// A route's `lookup:`: the config (filters, names, errors), the store's bounds and removals,
/// and `lookup.<name>` in templates and a condition's `active`.
@Suite struct LookupTests {
    static func errors(_ yaml: String) -> [ConfigError] {
        if case .failure(let e) = ConfigLoader.load(text: yaml, path: "bridge.yml", environment: [:]) { return e.errors }
        return []
    }

    static let alarm = """
    entitlements: [com.apple.developer.usernotifications.filtering]
    routes:
      - name: alarm
        topic: esphome/+/binary_sensor/+/state
        input: text
        lookup:
          discovery: "homeassistant/binary_sensor/{{ levels[-4] }}/{{ levels[-2] }}/config"
          status: "esphome/{{ levels[1] }}/status"
        alert:
          title: "{{ levels[-2] }}: {{ lookup.discovery.dev_cla | default('unknown') }}"
          body: "{{ payload }} ({{ lookup.status }})"
    """

    static func message(_ topic: String, _ payload: String, retain: Bool = false) -> InboundMessage {
        InboundMessage(topic: topic, payload: Array(payload.utf8), qos: 1, retain: retain, receivedAt: 1_790_000_000)
    }

    @Test func configReadsTemplatesAndFilters() throws {
        let config = try loadConfig(Self.alarm)
        let lookups = config.routes[0].lookups
        #expect(lookups.map(\.name) == ["discovery", "status"])
        #expect(lookups.map(\.filter) == ["homeassistant/binary_sensor/+/+/config", "esphome/+/status"])
        #expect(config.lookupTopicFilters == ["homeassistant/binary_sensor/+/+/config", "esphome/+/status"])
        let subscriptions = RouteSubscriptions.subscriptions(for: config)
        #expect(subscriptions.contains { $0.filter == "homeassistant/binary_sensor/+/+/config" && $0.qos == 0 })
        #expect(config.describe().contains("lookup discovery: the newest payload on \"homeassistant/binary_sensor/{{ levels[-4] }}/{{ levels[-2] }}/config\" (subscribed as homeassistant/binary_sensor/+/+/config)"))
    }

    @Test func sharedRouteKeepsLookupsUnshared() throws {
        let config = try loadConfig(Self.alarm.replacingOccurrences(of: "    input: text", with: "    input: text\n    share: g"))
        let subscriptions = RouteSubscriptions.subscriptions(for: config)
        #expect(subscriptions.contains { $0.filter == "homeassistant/binary_sensor/+/+/config" })
        #expect(subscriptions.contains { $0.filter == "$share/g/esphome/+/binary_sensor/+/state" })
    }

    @Test func mistakesArePositioned() {
        func yaml(_ lookup: String) -> String {
            "routes:\n  - topic: a/+\n    lookup:\n" + lookup
        }
        let badName = Self.errors(yaml("      1st: a/b\n      ok: a/c\n      has-dash: a/d\n"))
        #expect(badName.count == 2)
        #expect(badName.first?.line == 4 && badName.first?.message.contains("invalid lookup name \"1st\"") == true)
        #expect(badName.last?.line == 6 && badName.last?.message.contains("has-dash") == true)
        let badTemplate = Self.errors(yaml("      x: \"a/{{ levels[ }}\"\n"))
        #expect(badTemplate.first?.message.contains("invalid template in 'lookup.x'") == true)
        let badFilter = Self.errors(yaml("      x: \"a/#/{{ topic }}\"\n"))
        #expect(badFilter.first?.message.contains("invalid 'lookup.x'") == true)
        let shared = Self.errors(yaml("      x: \"$share/g/{{ topic }}\"\n"))
        #expect(shared.first?.message.contains("must not start with '$share/'") == true)
        let circular = Self.errors(yaml("      x: \"a/{{ lookup.y }}\"\n"))
        #expect(circular.first?.message.contains("cannot read 'lookup'") == true)
        let notMapping = Self.errors(yaml("      - a/b\n"))
        #expect(notMapping.first?.message.contains("'lookup' must be a mapping") == true)
        let typo = Self.errors("routes:\n  - topic: a/+\n    lookups: {x: a/b}\n")
        #expect(typo.first?.message.contains("lookup") == true)
    }

    @Test func storeKeepsParsesAndRemoves() {
        let store = LookupStore()
        store.keep(topic: "t/json", payload: Array(#"{"dev_cla":"gas"}"#.utf8))
        store.keep(topic: "t/text", payload: Array("online".utf8))
        #expect(store.value(of: "t/json") == .object(["dev_cla": .string("gas")]))
        #expect(store.value(of: "t/text") == .string("online"))
        #expect(store.value(of: "t/none") == .null)
        store.keep(topic: "t/text", payload: Array("offline".utf8))
        #expect(store.value(of: "t/text") == .string("offline"))
        // An empty payload (a deleted retained message) removes the value.
        store.keep(topic: "t/json", payload: [])
        #expect(store.value(of: "t/json") == .null)
        #expect(store.count == 1)
    }

    @Test func storeIsBounded() {
        let store = LookupStore(maxTopics: 3, maxPayloadBytes: 8)
        for n in 1...4 { store.keep(topic: "t/\(n)", payload: Array("\(n)".utf8)) }
        // The topic stored longest ago goes first.
        #expect(store.count == 3 && store.value(of: "t/1") == .null && store.value(of: "t/4") == .int(4))
        // Storing t/2 again makes t/3 the oldest.
        store.keep(topic: "t/2", payload: Array("22".utf8))
        store.keep(topic: "t/5", payload: Array("5".utf8))
        #expect(store.value(of: "t/3") == .null && store.value(of: "t/2") == .int(22))
        // Too large: not kept, and the older value goes too.
        store.keep(topic: "t/5", payload: Array("123456789".utf8))
        #expect(store.value(of: "t/5") == .null && store.count == 2)
        // Many updates of a few topics keep the bookkeeping small and the values right.
        for n in 0..<5_000 { store.keep(topic: "t/\(n % 3)", payload: Array("\(n)".utf8)) }
        #expect(store.count == 3 && store.value(of: "t/2") == .int(4_997))
        #expect(LookupStore.defaultMaxTopics == 10_000 && LookupStore.defaultMaxPayloadBytes == 65_536)
    }

    @Test func templatesReadTheKeptValue() throws {
        let store = LookupStore()
        let pipeline = Pipeline(config: try loadConfig(Self.alarm), logger: BridgeLogger(level: .error), lookups: store)
        // Before anything is kept: null.
        var d = TryRunner.chain(pipeline: pipeline, message: Self.message("esphome/kitchen/binary_sensor/boiler/state", "ON"))[0]
        #expect(d.request?.content.title == "boiler: unknown" && d.request?.content.body == "ON ()")
        // The discovery config (retained) is kept, not decided: no route matches its topic.
        let kept = TryRunner.chain(pipeline: pipeline, message: Self.message(
            "homeassistant/binary_sensor/kitchen/boiler/config", #"{"dev_cla":"gas","name":"Boiler"}"#, retain: true))
        #expect(kept.count == 1 && kept[0].outcome == .notDisplayed && kept[0].rule.hasPrefix("kept for lookups"))
        #expect(pipeline.keepForLookups(Self.message("esphome/kitchen/status", "online")))
        #expect(!pipeline.keepForLookups(Self.message("esphome/kitchen/other", "x")))
        d = TryRunner.chain(pipeline: pipeline, message: Self.message("esphome/kitchen/binary_sensor/boiler/state", "ON"))[0]
        #expect(d.request?.content.title == "boiler: gas" && d.request?.content.body == "ON (online)")
        // Another sensor's config is another topic.
        d = TryRunner.chain(pipeline: pipeline, message: Self.message("esphome/kitchen/binary_sensor/door/state", "ON"))[0]
        #expect(d.request?.content.title == "door: unknown")
    }

    @Test func routesWithoutLookupSeeNull() throws {
        let yaml = """
        entitlements: [com.apple.developer.usernotifications.filtering]
        routes:
          - name: plain
            topic: a/+
            input: text
            alert: {title: "{{ lookup | json }}"}
        """
        let pipeline = Pipeline(config: try loadConfig(yaml), logger: BridgeLogger(level: .error), lookups: LookupStore())
        #expect(pipeline.lookups == nil)
        let d = TryRunner.chain(pipeline: pipeline, message: Self.message("a/b", "x"))[0]
        #expect(d.request?.content.title == "null")
    }

    @Test func conditionReadsLookupInActive() throws {
        let yaml = """
        entitlements: [com.apple.developer.usernotifications.filtering]
        routes:
          - name: alarm
            topic: esphome/+/binary_sensor/+/state
            input: text
            lookup: {discovery: "homeassistant/binary_sensor/{{ levels[-4] }}/{{ levels[-2] }}/config"}
            alert: {title: "{{ levels[-2] }} ({{ lookup.discovery.dev_cla }})"}
            condition:
              key: "{{ topic }}"
              active: '(payload | trim) == "ON" && (lookup.discovery.dev_cla | default("")) in ["gas", "smoke"]'
              on_clear: withdraw
        """
        let pipeline = Pipeline(config: try loadConfig(yaml), logger: BridgeLogger(level: .error), lookups: LookupStore())
        var d = TryRunner.chain(pipeline: pipeline, message: Self.message("esphome/k/binary_sensor/boiler/state", "ON"))[0]
        #expect(d.outcome == .notDisplayed)
        _ = TryRunner.chain(pipeline: pipeline, message: Self.message("homeassistant/binary_sensor/k/boiler/config", #"{"dev_cla":"gas"}"#))
        d = TryRunner.chain(pipeline: pipeline, message: Self.message("esphome/k/binary_sensor/boiler/state", "ON"))[0]
        #expect(d.outcome == .delivered && d.request?.content.title == "boiler (gas)")
    }
}
