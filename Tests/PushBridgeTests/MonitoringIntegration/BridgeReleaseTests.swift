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
        let config = try ConfigLoader.load(text: yaml, path: "bridge.yml", environment: [:]).get()
        weak var released: Bridge?
        do {
            let bridge = try Bridge(config: config, logger: Logger(level: .error))
            released = bridge
            let task = Task { try await bridge.run() }
            let deadline = Date().addingTimeInterval(30)
            while !bridge.snapshot().connected, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
            #expect(bridge.snapshot().connected)
            bridge.requestStop()
            _ = try? await task.value
        }
        let deadline = Date().addingTimeInterval(20)
        while released != nil, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(released == nil, "the stopped bridge is still alive")
    }
}
