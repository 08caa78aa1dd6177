import Foundation
import Testing
@testable import PushBridge

/// The bridge.yml of docs/people.md's "A complete two-person home", as the page has it, run
/// here: a private mosquitto, Alice's ntfy server (one the test may stop, as ntfy.sh being
/// down), Bob's ntfy server, the loopback webhook receiver for the SMS gateway and the hall
/// display, a fake wall clock and an observer of the display and status topics.
struct DocumentedHome {
    let broker: TestBroker
    /// Subscribed to `display/#` and `pushbridge/status` (the file's defaults); publishes the integrations' messages.
    let observer: TestClient
    let aliceNtfy: NtfyServer
    let bobNtfy: NtfyServer
    let hook: HookServer
    let clock: FakeWallClock
    /// The monitoring server's port.
    let http: Int
    /// The bridge.yml as run (the page's, with the loopback services in it).
    let yaml: String
    let bridge: InProcessBridge
    /// Alice's and Bob's ntfy topics.
    let aliceTopic: String
    let bobTopic: String

    /// The first ```yaml block after "## A complete two-person home" in docs/people.md.
    static func documentedYAML() throws -> String {
        let page = try String(contentsOfFile: repositoryRoot + "/docs/people.md", encoding: .utf8)
        let section = try #require(page.range(of: "## A complete two-person home"), "the heading is gone from docs/people.md")
        let rest = page[section.upperBound...]
        let open = try #require(rest.range(of: "```yaml\n"), "no yaml block after the heading")
        let close = try #require(rest[open.upperBound...].range(of: "\n```"), "the yaml block is not closed")
        return String(rest[open.upperBound..<close.lowerBound]) + "\n"
    }

    /// `text` with `old` replaced by `new`; `old` must occur exactly once (a doc change that
    /// removes or repeats it fails here rather than testing something else).
    static func replacing(_ old: String, with new: String, in text: String) throws -> String {
        let count = text.components(separatedBy: old).count - 1
        try #require(count == 1, "'\(old)' occurs \(count) times in the documented bridge.yml")
        return text.replacingOccurrences(of: old, with: new)
    }

    /// Starts the services and the bridge on the documented file, the clock at local noon
    /// (no midnight for the budget's day), and waits until the bridge is online.
    static func start() async throws -> DocumentedHome {
        let broker = try TestBroker()
        let observer = try TestClient(options: TestClient.options(broker, subscriptions: [
            MQTTSubscription(filter: "display/#", qos: 1), MQTTSubscription(filter: "pushbridge/status", qos: 1),
        ]))
        observer.start()
        try await observer.waitUntilSubscribed()
        let aliceNtfy = try await NtfyServer.make()
        let bobNtfy = try await NtfyServer.make()
        let hook = try await HookServer.start()
        let clock = FakeWallClock(OutputBudgetTests.localNoon())
        let http = try LoopbackPorts.free()
        let journal = try makeTempDirectory()
        let names = (alice: "alice-\(UUID().uuidString.prefix(8).lowercased())", bob: "bob-\(UUID().uuidString.prefix(8).lowercased())")
        var text = try documentedYAML()
        for (old, new) in [
            ("broker: {host: 127.0.0.1, port: 1883}", "broker: {host: 127.0.0.1, port: \(broker.port)}"),
            ("journal: {path: /var/lib/pushbridge/journal}", "journal: {path: \(journal)}"),
            ("monitoring: {http: 127.0.0.1:9464}", "monitoring: {http: 127.0.0.1:\(http)}"),
            (#""https://ntfy.sh/alice-home-7f3c9a""#, #""\#(aliceNtfy.url(names.alice))""#),
            (#""https://ntfy.example.com/bob""#, #""\#(bobNtfy.url(names.bob))""#),
            (#""https://sms.example.com/send""#, #""\#(hook.url("/ok/sms/send"))""#),
            (#""http://hall-display.local/notify""#, #""\#(hook.url("/ok/hall/notify"))""#),
        ] { text = try replacing(old, with: new, in: text) }
        let bridge = try InProcessBridge.start(yaml: text, clock: clock.stageClock)
        let home = DocumentedHome(broker: broker, observer: observer, aliceNtfy: aliceNtfy, bobNtfy: bobNtfy, hook: hook,
                                  clock: clock, http: http, yaml: text, bridge: bridge, aliceTopic: names.alice, bobTopic: names.bob)
        try await observer.waitForMessages("the bridge online") {
            $0.contains { $0.topic == "pushbridge/status" && $0.payload == Array("online".utf8) }
        }
        return home
    }

    /// The parts `start()` made.
    private init(broker: TestBroker, observer: TestClient, aliceNtfy: NtfyServer, bobNtfy: NtfyServer, hook: HookServer,
                 clock: FakeWallClock, http: Int, yaml: String, bridge: InProcessBridge, aliceTopic: String, bobTopic: String) {
        (self.broker, self.observer, self.aliceNtfy, self.bobNtfy, self.hook) = (broker, observer, aliceNtfy, bobNtfy, hook)
        (self.clock, self.http, self.yaml, self.bridge) = (clock, http, yaml, bridge)
        (self.aliceTopic, self.bobTopic) = (aliceTopic, bobTopic)
    }

    // MARK: the integrations' messages

    /// Alice's OwnTracks app reports a `location`, inside the `home` region or not.
    func alice(home: Bool) throws {
        let regions = home ? #"["home"]"# : #"["work"]"#
        try observer.publish("owntracks/alice/phone", #"{"_type":"location","acc":13,"batt":73,"conn":"w","lat":52.3702,"lon":4.8952,"tid":"al","tst":1733550000,"inregions":\#(regions)}"#)
    }

    /// Home Assistant's statestream publishes `person.bob`'s state (plain text, retained).
    func bob(_ state: String) throws {
        try observer.publish("homeassistant/person/bob/state", state, retain: true)
    }

    /// Sets both presences and waits until the bridge sees them.
    func presence(alice aliceHome: Bool, bob bobHome: Bool) async throws {
        try alice(home: aliceHome)
        try bob(bobHome ? "home" : "not_home")
        let board = try #require(bridge.bridge.people?.board)
        try await eventually("alice \(aliceHome), bob \(bobHome)", timeout: .seconds(10)) {
            let entries = board.entries(at: bridge.bridge.people!.wall())
            return entries.first { $0.name == "alice" }?.state == (aliceHome ? .home : .away)
                && entries.first { $0.name == "bob" }?.state == (bobHome ? .home : .away)
        }
    }

    /// Zigbee2MQTT's bridge state (retained, as Zigbee2MQTT publishes it).
    func zigbee2mqtt(_ state: String) throws {
        try observer.publish("zigbee2mqtt/bridge/state", #"{"state":"\#(state)"}"#, retain: true)
    }

    /// A device's availability report (retained, as Zigbee2MQTT publishes it).
    func availability(_ device: String, _ state: String) throws {
        try observer.publish("zigbee2mqtt/\(device)/availability", #"{"state":"\#(state)"}"#, retain: true)
    }

    /// The front doorbell rings.
    func doorbell() throws { try observer.publish("home/front/doorbell", #"{"event":"ring"}"#) }

    // MARK: what each one was told

    /// The titles in Alice's (`alice`) or Bob's (`bob`) ntfy topic, oldest first.
    func ntfy(_ who: String) throws -> [String] {
        let messages = who == "alice" ? try aliceNtfy.messages(aliceTopic) : try bobNtfy.messages(bobTopic)
        return messages.compactMap { $0["title"]?.stringValue }
    }

    /// Everything Alice's ntfy topic holds, read with curl (its answer may pass the 64 KiB the
    /// outputs' client keeps of a body): the messages, oldest first.
    func aliceNtfyAll() async throws -> [JSONValue] {
        let r = try await ManagedProcess.run("/usr/bin/curl", ["-sS", "--max-time", "20", aliceNtfy.url(aliceTopic) + "/json?poll=1"],
                                             timeout: .seconds(30))
        return try r.stdout.split(separator: "\n").map { try JSONValue.parse(String($0)) }.filter { $0["event"] == .string("message") }
    }

    /// Waits until the output `name` has had `count` deliveries accepted (its own counter).
    func waitForDelivered(_ name: String, _ count: Int, timeout: Duration = .seconds(30)) async throws {
        try await eventually("\(count) delivered by \(name); has \((try? output(name).delivered) ?? -1)", timeout: timeout) {
            try output(name).delivered >= count
        }
    }

    /// The JSON bodies the webhook receiver got under `/ok/<name>/` (`hall`, `sms`), in order.
    func webhook(_ name: String) throws -> [JSONValue] {
        try hook.requests(under: "/ok/\(name)/").map { try JSONValue.parse($0["body"]?.stringValue ?? "") }
    }

    /// The titles of the notifications the hall display's webhook got (not the withdraws), in order.
    func hall() throws -> [String] {
        try webhook("hall").filter { $0["type"] != .string("withdraw") }.map { jsonString($0["title"]) }
    }

    /// Waits until `read` holds `count` items (and says what it holds when it does not).
    func waitFor<T: Sendable>(_ what: String, count: Int, timeout: Duration = .seconds(20),
                              _ read: @escaping @Sendable () throws -> [T]) async throws {
        try await eventually("\(what): \(count); has \((try? read()).map { "\($0)" } ?? "?")", timeout: timeout) {
            try read().count >= count
        }
    }

    /// Waits until no output has deliveries pending.
    func settle() async throws {
        let outputs = try #require(bridge.bridge.outputs)
        try await eventually("outputs idle", timeout: .seconds(30)) { outputs.snapshots().allSatisfy { $0.pending == 0 } }
    }

    /// The output's snapshot by name.
    func output(_ name: String) throws -> OutputStatsSnapshot {
        let outputs = try #require(bridge.bridge.outputs)
        return try #require(outputs.snapshots().first { $0.name == name })
    }

    /// `GET /api/alerts` of the monitoring server.
    func alerts() throws -> [JSONValue] {
        guard case .array(let items) = try loopbackJSON("http://127.0.0.1:\(http)/api/alerts") else { return [] }
        return items
    }

    /// Stops the bridge (it drains), then the services.
    func stop() async throws {
        try await bridge.stop()
        observer.stop(flushTimeout: .seconds(1))
        await aliceNtfy.stop()
        await bobNtfy.stop()
        await hook.stop()
        broker.stop()
    }
}
