import Foundation
import Testing
@testable import PushBridge
@testable import PushBridgeCLI

/// The recipes on a real mosquitto: `pushbridge run -c examples/<recipe>/bridge.yml` with the
/// broker from the environment (`MQTT_HOST`, `MQTT_PORT`), the retained samples stored on the
/// broker before the bridge starts, the live ones published after it subscribed. The display
/// messages must be those `expected.tsv` delivers.
///
/// Only the samples before the first `#@ env` reload and at the first `#@ at` time run here:
/// the live bridge sees the real clock, so it runs with `TZ` set to the whole-hour zone in
/// which the real time falls in that hour (`#@ at 14:00` -> a zone where it is now 14:xx).
/// The rest is `RecipeTests`' job. OwnTracks is left out: its samples' `tst` fall on
/// 2026-03-04, and a live bridge would find them a day old.
///
/// A sample with `#@ attach NAME=FILE` lines has each file's bytes published first (QoS 1,
/// retained when the sample is) on the topic its attachment's `from_topic` renders for that
/// sample's message, as the camera would; a `url` attachment is fetched by the bridge from
/// `FRIGATE_URL`, pointed at a closed local port so it fails at once.
@Suite("Recipes on a real broker")
struct RecipeLiveTests {
    static let recipes = ["doorbell-camera", "esp32-cam", "esphome", "frigate", "homeassistant", "tasmota-shelly",
                          "zigbee2mqtt"]

    /// The bytes `sample`'s `#@ attach` lines give and the topics they go to: for each route of
    /// `config` whose filter matches the sample's topic, each `from_topic` attachment the
    /// sample names, its template rendered in the context the mapper makes for the message.
    static func attachmentPublishes(for sample: TrySample, config: BridgeConfig) throws -> [(topic: String, bytes: [UInt8])] {
        guard !sample.attach.isEmpty else { return [] }
        let now = Date().timeIntervalSince1970
        let message = InboundMessage(topic: sample.topic, payload: Array(sample.payload.utf8), qos: 1,
                                     retain: sample.retain, receivedAt: now)
        var out: [(topic: String, bytes: [UInt8])] = []
        for route in config.routes where TopicFilter.matches(filter: route.topic, topic: sample.topic) {
            let context = RequestMapper().map(message, route: route, id: "live", now: now).context
            for spec in route.attachments {
                guard let file = sample.attach[spec.identifier], case .topic(let template, _) = spec.source else { continue }
                let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
                out.append((template.render(in: context), Array(bytes)))
            }
        }
        return out
    }

    /// `Etc/GMT-N` (N hours east of UTC) in which the local hour is now `hour`, when
    /// Foundation knows that zone.
    static func zone(whereHourIs hour: Int) -> String? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        var offset = hour - calendar.component(.hour, from: Date())
        if offset > 14 { offset -= 24 }
        if offset < -12 { offset += 24 }
        let name = offset == 0 ? "Etc/GMT" : "Etc/GMT\(offset > 0 ? "-" : "+")\(abs(offset))"
        return TimeZone(identifier: name) != nil ? name : nil
    }

    @Test("the samples before the reload give the expected display messages", arguments: recipes)
    func samplesOnABroker(recipe: String) async throws {
        let dir = RecipeTests.examples.appendingPathComponent(recipe)
        // The full path: `#@ attach NAME=FILE` names a file relative to the samples file's folder.
        let samplesPath = dir.appendingPathComponent("samples.tsv").path
        let all = try TrySamples.parse(try String(contentsOfFile: samplesPath, encoding: .utf8), path: samplesPath)
        let start = try #require(all.first?.at, "\(recipe): samples.tsv starts with '#@ at HH:MM'")
        let samples = all.prefix { $0.environment.isEmpty && $0.at == start }
        guard let hour = Int(start.prefix(2)), start.count == 5, let zone = Self.zone(whereHourIs: hour) else {
            Issue.record("\(recipe): no time zone with the hour of '#@ at \(start)'")
            return
        }
        let expected = try RecipeFiles.expectations(
            try String(contentsOf: dir.appendingPathComponent("expected.tsv"), encoding: .utf8),
            path: "\(recipe)/expected.tsv")
        // Every delivered line, of every route that decides a sample (`continue: true`).
        let byLine = Dictionary(grouping: expected, by: \.line)
        let wanted = samples.flatMap { sample -> [String] in
            (byLine[sample.line] ?? []).filter { $0.outcome == "delivered" }.map { "\(sample.topic) -> \($0.title ?? "")" }
        }.sorted()
        let retained = samples.filter(\.retain)
        let live = samples.filter { !$0.retain }

        let broker = try TestBroker()
        var environment = PushbridgeBinary.environment
        environment["MQTT_HOST"] = "127.0.0.1"
        environment["MQTT_PORT"] = String(broker.port)
        environment["PUSHBRIDGE_CLIENT_ID"] = uniqueName("recipe")
        environment["TZ"] = zone
        // A `url` attachment (Frigate's API) fails at once: nothing listens on the discard port.
        environment["FRIGATE_URL"] = "http://127.0.0.1:9"
        // The config as the bridge reads it, for the topics the attachments' bytes go to.
        let config = try ConfigLoader.load(path: dir.appendingPathComponent("bridge.yml").path, environment: environment).get()
        let observer = try await TestClient.connected(to: broker, subscriptions: [
            MQTTSubscription(filter: "display/#", qos: 1), MQTTSubscription(filter: "pushbridge/stats", qos: 1),
        ])
        defer { observer.stop(flushTimeout: .zero) }
        var retainedPublishes = 0
        for sample in retained {
            for (topic, bytes) in try Self.attachmentPublishes(for: sample, config: config) {
                _ = try observer.client.publish(topic: topic, payload: bytes, qos: 1, retain: true)
                retainedPublishes += 1
            }
            try observer.publish(sample.topic, sample.payload, retain: true)
            retainedPublishes += 1
        }
        let retainedCount = retained.count
        let acknowledged = retainedPublishes
        try await observer.waitForPublished("the retained samples acknowledged", timeout: .seconds(20)) {
            $0.count == acknowledged
        }

        let bridge = try PushbridgeBinary.run(configFile: dir.appendingPathComponent("bridge.yml").path, environment: environment)
        // The bridge has subscribed when it has decided every retained sample the broker replayed.
        @Sendable func decided(_ messages: [InboundMessage]) -> (received: Int, inFlight: Int) {
            guard let last = messages.last(where: { $0.topic == "pushbridge/stats" }),
                  let stats = try? JSONValue.parse(last.payload) else { return (-1, -1) }
            return (count(stats, "totals", "received"), count(stats, "in_flight"))
        }
        try await observer.waitForMessages("\(recipe): the bridge decided the \(retained.count) retained samples; stderr: \(bridge.stderr)",
                                           timeout: .seconds(40)) {
            decided($0) == (retainedCount, 0)
        }
        for sample in live {
            // The pictures first, as a camera publishes them (a topic that only an attachment
            // reads is kept, not decided: the counts below are the samples').
            for (topic, bytes) in try Self.attachmentPublishes(for: sample, config: config) {
                _ = try observer.client.publish(topic: topic, payload: bytes, qos: 1, retain: false)
            }
            try observer.publish(sample.topic, sample.payload)
        }
        let sampleCount = samples.count
        try await observer.waitForMessages("\(recipe): the bridge decided all \(samples.count) samples; stderr: \(bridge.stderr)",
                                           timeout: .seconds(40)) {
            decided($0) == (sampleCount, 0)
        }
        // The notifications (a cleared condition's withdraw message is not one).
        @Sendable func shown(_ messages: [InboundMessage]) -> [String] {
            messages.filter { $0.topic.hasPrefix("display/") }.compactMap { message in
                let display = try? JSONValue.parse(message.payload)
                if jsonString(display?["type"]) == "withdraw" { return nil }
                return "\(jsonString(display?["source_topic"])) -> \(jsonString(display?["title"]))"
            }.sorted()
        }
        let wantedCount = wanted.count
        try await observer.waitForMessages("\(recipe): \(wanted.count) display messages, have \(shown(observer.messages))",
                                                     timeout: .seconds(20)) {
            shown($0).count >= wantedCount
        }
        #expect(shown(observer.messages) == wanted, "\(recipe): display messages on a real broker")
        _ = await bridge.terminate()
        broker.stop()
    }
}
