import Foundation
import Testing
@testable import PushBridge

/// The recipes on a real mosquitto: `pushbridge run -c examples/<recipe>/bridge.yml` with the
/// broker from the environment (`MQTT_HOST`, `MQTT_PORT`), the retained samples stored on the
/// broker before the bridge starts, the live ones published after it subscribed. The display
/// messages must be those `expected.tsv` delivers.
///
/// Only the samples before the first `#@ env` reload run here, and only for the recipes
/// whose outcomes there do not depend on the time of day (the live bridge sees the real
/// clock, not `#@ at`): the rest is `RecipeTests`' job.
@Suite("Recipes on a real broker")
struct RecipeLiveTests {
    static let recipes = ["esphome", "frigate", "homeassistant", "tasmota-shelly"]

    @Test("the samples before the reload give the expected display messages", arguments: recipes)
    func samplesOnABroker(recipe: String) async throws {
        let dir = RecipeTests.examples.appendingPathComponent(recipe)
        let samples = try TrySamples.parse(
            try String(contentsOf: dir.appendingPathComponent("samples.tsv"), encoding: .utf8),
            path: "\(recipe)/samples.tsv").prefix { $0.environment.isEmpty }
        let expected = try RecipeFiles.expectations(
            try String(contentsOf: dir.appendingPathComponent("expected.tsv"), encoding: .utf8),
            path: "\(recipe)/expected.tsv")
        let byLine = Dictionary(expected.map { ($0.line, $0) }, uniquingKeysWith: { first, _ in first })
        let wanted = samples.compactMap { sample -> String? in
            guard let e = byLine[sample.line], e.outcome == "delivered" else { return nil }
            return "\(sample.topic) -> \(e.title ?? "")"
        }.sorted()
        let retained = samples.filter(\.retain)
        let live = samples.filter { !$0.retain }

        let broker = try withUnblockedSignals { try TestBroker() }
        let observer = try await TestClient.connected(to: broker, subscriptions: [
            MQTTSubscription(filter: "display/#", qos: 1), MQTTSubscription(filter: "pushbridge/stats", qos: 1),
        ])
        defer { observer.stop(flushTimeout: .zero) }
        for sample in retained { try observer.publish(sample.topic, sample.payload, retain: true) }
        try await eventually("the retained samples acknowledged", timeout: .seconds(20)) {
            observer.publishedMids.count == retained.count
        }

        var environment = MonitoredBinary.environment
        environment["MQTT_HOST"] = "127.0.0.1"
        environment["MQTT_PORT"] = String(broker.port)
        environment["PUSHBRIDGE_CLIENT_ID"] = uniqueName("recipe")
        let bridge = try withUnblockedSignals {
            try ManagedProcess(try MonitoredBinary.located(), ["run", "-c", dir.appendingPathComponent("bridge.yml").path],
                               environment: environment)
        }
        // The bridge has subscribed when it has decided every retained sample the broker replayed.
        func decided() -> (received: Int, inFlight: Int) {
            guard let last = observer.messages.last(where: { $0.topic == "pushbridge/stats" }),
                  let stats = try? JSONValue.parse(last.payload) else { return (-1, -1) }
            return (count(stats, "totals", "received"), count(stats, "in_flight"))
        }
        try await eventually("\(recipe): the bridge decided the \(retained.count) retained samples; stderr: \(bridge.stderr)",
                             timeout: .seconds(40)) {
            decided() == (retained.count, 0)
        }
        for sample in live { try observer.publish(sample.topic, sample.payload) }
        try await eventually("\(recipe): the bridge decided all \(samples.count) samples; stderr: \(bridge.stderr)",
                             timeout: .seconds(40)) {
            decided() == (samples.count, 0)
        }
        func shown() -> [String] {
            observer.messages.filter { $0.topic.hasPrefix("display/") }.map { message in
                let display = try? JSONValue.parse(message.payload)
                return "\(jsonString(display?["source_topic"])) -> \(jsonString(display?["title"]))"
            }.sorted()
        }
        try await eventually("\(recipe): \(wanted.count) display messages, have \(shown())", timeout: .seconds(20)) {
            shown().count >= wanted.count
        }
        #expect(shown() == wanted, "\(recipe): display messages on a real broker")
        _ = await bridge.terminate()
        broker.stop()
    }
}
