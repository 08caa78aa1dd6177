import Foundation
import Testing
@testable import PushBridge

/// A bridge that has run and stopped is freed with everything it owns (its MQTT clients,
/// pipeline, stats): a program that links the library may start and stop bridges.
@Suite("Bridge release")
struct BridgeReleaseTests {
    @Test("after run() returns, nothing holds the bridge")
    func stoppedBridgeIsFreed() async throws {
        let broker = try TestBroker()
        let yaml = brokerSection(broker, clientID: uniqueName("release")) + """

            routes:
              - {name: a, topic: "\(uniqueName("rel"))/#", alert: {body: "{{ raw }}"}}
            display:
              topic: "display/{{ topic }}"
            """
        weak var released: Bridge?
        do {
            let running = try InProcessBridge.start(yaml: yaml, level: .error)
            released = running.bridge
            try await running.waitUntilSubscribed(on: broker)
            #expect(running.bridge.snapshot().connected)
            try await running.stop()
        }
        // Nothing announces a deinit: check until it has happened.
        try await eventually("the stopped bridge freed", timeout: .seconds(20)) { released == nil }
    }
}
