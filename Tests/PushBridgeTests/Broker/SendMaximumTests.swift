import Foundation
import Testing
@testable import PushBridge

/// The output connection's send maximum (`Bridge.outputSendMaximum`): how many QoS 1 publishes
/// it keeps unacknowledged when the broker states no Receive Maximum, and that a broker's
/// stated maximum still bounds it. Against `WindowBroker`, which acknowledges only in groups.
@Suite struct SendMaximumTests {
    @Test func theOutputConnectionStatesItsOwnSendMaximum() {
        var broker = BrokerConfig()
        broker.clientID = "b"
        #expect(Bridge.outputOptions(for: broker).maxInflight == Bridge.outputSendMaximum)
        #expect(Bridge.outputSendMaximum == Intake.receiveMaximum)
        // The intake connection leaves libmosquitto's (it publishes QoS 0 only).
        #expect(MQTTClientOptions(config: broker, will: nil, subscriptions: []).maxInflight == nil)
    }

    /// No Receive Maximum in the CONNACK: all 100 publishes go out before any PUBACK (the
    /// broker acknowledges the first only once it holds 100). With libmosquitto's default of
    /// 20 the broker would have stopped at 20.
    @Test func withoutTheBrokersMaximumTheWindowIsOurs() async throws {
        let counts = try await publish(100, receiveMaxima: [nil], acknowledgeAt: 100)
        #expect(counts.mostUnacknowledged == 100)
    }

    /// A broker that stated 5 on the first connection and states none on the next: the next
    /// connection's window is ours again, not the last broker's.
    @Test func eachConnectionStartsFromOurMaximum() async throws {
        let counts = try await publish(100, receiveMaxima: [5, nil], acknowledgeAt: 100)
        #expect(counts.mostUnacknowledged == 100)
    }

    /// A stated Receive Maximum of 5 replaces ours: never more than 5 unacknowledged, and all
    /// 100 still arrive as the broker acknowledges five at a time.
    @Test func theBrokersMaximumBoundsTheWindow() async throws {
        let counts = try await publish(100, receiveMaxima: [5], acknowledgeAt: 5)
        #expect(counts.mostUnacknowledged == 5)
    }

    /// Connects a client with the output connection's options once per entry of `receiveMaxima`
    /// (the broker closes all but the last connection), publishes `count` QoS 1 messages on the
    /// last and waits until the broker has received them all and the client has every PUBACK.
    private func publish(_ count: Int, receiveMaxima: [UInt16?], acknowledgeAt: Int) async throws -> WindowBroker.Counts {
        let broker = try WindowBroker(receiveMaxima: receiveMaxima, acknowledgeAt: acknowledgeAt)
        defer { broker.stop() }
        var config = BrokerConfig()
        config.host = "127.0.0.1"
        config.port = broker.port
        config.clientID = uniqueName("window")
        config.reconnectMin = .milliseconds(50)
        config.reconnectMax = .milliseconds(100)
        let client = try TestClient(options: Bridge.outputOptions(for: config))
        defer { client.stop() }
        client.start()
        try await client.waitForEvents("connected", count: receiveMaxima.count) { if case .connected = $0 { true } else { false } }
        var mids: Set<Int32> = []
        for i in 0..<count { mids.insert(try client.publish("window/\(i % 4)", "\(i)")) }
        let counts = try await broker.counts.wait(for: "\(count) publishes at the broker") { $0.received >= count }
        let all = mids
        try await client.waitForPublished("every PUBACK") { Set($0).isSuperset(of: all) }
        #expect(counts.received == count)
        return counts
    }
}
