import Foundation
import Testing
@testable import PushBridge

/// `MQTTClientOptions.acknowledgementReadDelay` (the output connection's): PUBACKs are read
/// when the network thread wakes for something else, or after the delay, through a real
/// mosquitto.
@Suite struct AcknowledgementReadDelayTests {
    @Test func delaysBecomePollTimeouts() {
        #expect(ClientCore.pollMilliseconds(.milliseconds(1)) == 1)
        #expect(ClientCore.pollMilliseconds(.microseconds(200)) == 1)
        #expect(ClientCore.pollMilliseconds(.microseconds(1500)) == 2)
        #expect(ClientCore.pollMilliseconds(.zero) == 1)
        #expect(ClientCore.pollMilliseconds(.milliseconds(-5)) == 1)
        #expect(ClientCore.pollMilliseconds(.milliseconds(250)) == 250)
        #expect(ClientCore.pollMilliseconds(.seconds(3600)) == ClientCore.loopTimeoutMilliseconds)
    }

    @Test func onlyTheOutputConnectionDelaysItsReads() {
        var broker = BrokerConfig()
        broker.clientID = "b"
        #expect(Bridge.outputOptions(for: broker).acknowledgementReadDelay == Bridge.outputAcknowledgementReadDelay)
        #expect(MQTTClientOptions(config: broker, will: nil, subscriptions: []).acknowledgementReadDelay == nil)
        #expect(Bridge.outputAcknowledgementReadDelay <= .milliseconds(1))
    }

    /// A PUBACK waits in the socket until the next publish wakes the thread, and a lone one
    /// is read after the delay. Every timed expectation is a bound that load cannot break: a
    /// PUBACK cannot be read sooner than the delay unless something woke the thread.
    @Test func acknowledgementsAreReadOnTheNextWakeUpOrAfterTheDelay() async throws {
        let broker = try TestBroker()
        let topic = uniqueName("lazy")
        let sub = try await TestClient.connected(to: broker, subscriptions: [MQTTSubscription(filter: "\(topic)/#")])
        var options = TestClient.options(broker)
        let delay = Duration.seconds(1)
        options.acknowledgementReadDelay = delay
        let pub = try TestClient(options: options)
        pub.start()
        try await pub.waitForEvent { if case .connected = $0 { true } else { false } }

        // The turn that reported the CONNACK is over, the thread waits in poll (a publish made
        // while that turn runs leaves its wake-up for the next turn, which then reads at once).
        try await Task.sleep(for: .milliseconds(100))
        let t0 = ContinuousClock.now
        let a = try pub.publish("\(topic)/a", "a")
        // The broker has it (the subscriber got it) and answered; the thread sleeps through that PUBACK.
        _ = try await sub.waitForMessages(count: 1)
        try await Task.sleep(for: .milliseconds(100))
        let readEarly = pub.publishedMids.contains(a)
        if ContinuousClock.now - t0 < delay { #expect(!readEarly, "PUBACK read without a wake-up, before the delay") }

        // The next publish wakes the thread: it reads a's PUBACK and writes b.
        let t1 = ContinuousClock.now
        let b = try pub.publish("\(topic)/b", "b")
        try await pub.waitForPublished("a's PUBACK") { $0.contains(a) }
        // Nothing else wakes it: b's PUBACK waits for the delay.
        let mids = try await pub.waitForPublished("b's PUBACK") { $0.contains(b) }
        #expect(ContinuousClock.now - t1 >= delay - .milliseconds(10))
        #expect(mids == [a, b])
        let got = try await sub.waitForMessages(count: 2)
        #expect(got.map(\.payload) == [Array("a".utf8), Array("b".utf8)])
        pub.stop()
    }

    /// A stream published from another thread is all acknowledged, and stop flushes the rest.
    @Test func aStreamIsAcknowledgedAndStopFlushes() async throws {
        let broker = try TestBroker()
        let topic = uniqueName("lazy-stream")
        let sub = try await TestClient.connected(to: broker, subscriptions: [MQTTSubscription(filter: topic)])
        var options = TestClient.options(broker)
        options.acknowledgementReadDelay = .milliseconds(1)
        let pub = try TestClient(options: options)
        pub.start()
        try await pub.waitForEvent { if case .connected = $0 { true } else { false } }
        var mids: Set<Int32> = []
        for i in 0..<2000 {
            mids.insert(try pub.publish(topic, "\(i)"))
            if i % 100 == 99 { try await Task.sleep(for: .milliseconds(2)) }
        }
        let all = mids
        try await pub.waitForPublished("2000 PUBACKs") { Set($0).isSuperset(of: all) }
        for i in 0..<50 { _ = try pub.publish(topic, "tail \(i)") }
        pub.stop()
        #expect(pub.client.unacknowledgedCount == 0)
        let got = try await sub.waitForMessages(count: 2050)
        #expect(got.count == 2050)
        #expect(got.prefix(2000).map { String(decoding: $0.payload, as: UTF8.self) } == (0..<2000).map { "\($0)" })
    }
}
