import Dispatch
import Foundation
import Testing
@testable import PushBridge

/// `ReadCoalescing`, the intake connection's pause after a turn that read a batch: the rule,
/// its limits, and through a real mosquitto that a trickle never pauses, a batch does, and
/// nothing is lost or reordered either way.
@Suite struct ReadCoalescingTests {
    @Test func pausesOnlyAfterABatchWithNothingLeftBuffered() {
        let c = ReadCoalescing(minimumBatch: 4, delay: .microseconds(200))
        #expect(!c.pauses(afterBatch: 0, buffered: false))
        #expect(!c.pauses(afterBatch: 1, buffered: false))
        #expect(!c.pauses(afterBatch: 3, buffered: false))
        #expect(c.pauses(afterBatch: 4, buffered: false))
        #expect(c.pauses(afterBatch: 64, buffered: false))
        // Bytes already read wait in the buffer: there is work now.
        #expect(!c.pauses(afterBatch: 4, buffered: true))
        #expect(!c.pauses(afterBatch: 64, buffered: true))
        let every = ReadCoalescing(minimumBatch: 1, delay: .microseconds(1))
        #expect(every.pauses(afterBatch: 1, buffered: false))
        #expect(!every.pauses(afterBatch: 0, buffered: false))
    }

    @Test func delaysBecomeWholeMicrosecondsRoundedUp() {
        #expect(ReadCoalescing(minimumBatch: 1, delay: .microseconds(200)).microseconds == 200)
        #expect(ReadCoalescing(minimumBatch: 1, delay: .nanoseconds(1)).microseconds == 1)
        #expect(ReadCoalescing(minimumBatch: 1, delay: .nanoseconds(1_000)).microseconds == 1)
        #expect(ReadCoalescing(minimumBatch: 1, delay: .nanoseconds(1_001)).microseconds == 2)
        #expect(ReadCoalescing(minimumBatch: 1, delay: ReadCoalescing.longestDelay).microseconds == 100_000)
        #expect(ReadCoalescing(minimumBatch: 1, delay: .seconds(2)).microseconds == 2_000_000)
    }

    @Test func valuesOutsideTheLimitsAreRefusedWhenTheClientIsMade() throws {
        let refused = [ReadCoalescing(minimumBatch: 0, delay: .microseconds(200)),
                       ReadCoalescing(minimumBatch: -3, delay: .microseconds(200)),
                       ReadCoalescing(minimumBatch: 4, delay: .zero),
                       ReadCoalescing(minimumBatch: 4, delay: .microseconds(-5)),
                       ReadCoalescing(minimumBatch: 4, delay: ReadCoalescing.longestDelay + .nanoseconds(1))]
        for coalescing in refused {
            let problem = try #require(coalescing.problem)
            var options = MQTTClientOptions(host: "127.0.0.1", port: 1, clientID: uniqueName("offline"))
            options.readCoalescing = coalescing
            #expect(throws: MQTTError.invalidOption(problem)) { try MQTTClient(options: options) }
        }
        #expect(ReadCoalescing(minimumBatch: 1, delay: ReadCoalescing.longestDelay).problem == nil)
        #expect(ReadCoalescing(minimumBatch: 1, delay: .nanoseconds(1)).problem == nil)
        #expect(ReadCoalescing(minimumBatch: 0, delay: .zero).problem?.contains("minimum batch 0") == true)
    }

    @Test func theIntakeConnectionPausesTheOutputConnectionDoesNot() {
        #expect(Bridge.intakeReadCoalescing.problem == nil)
        #expect(Bridge.intakeReadCoalescing.minimumBatch > 1)
        var broker = BrokerConfig()
        broker.clientID = "b"
        #expect(Bridge.outputOptions(for: broker).readCoalescing == nil)
        #expect(MQTTClientOptions(config: broker, will: nil, subscriptions: []).readCoalescing == nil)
    }

    /// Messages one at a time (each received, and the receiver's turn over, before the next is
    /// sent): every turn reads one packet, none pauses. Then the receiving thread is held inside
    /// the first message's callback while 30 more wait in its socket (at QoS 1 the broker's in-flight limit lets
    /// 19 of them through): that turn reads them, and the next one pauses. Every message
    /// arrives once, in order, at QoS 0 and QoS 1.
    @Test(.timeLimit(.minutes(1)), arguments: [0, 1])
    func aTrickleNeverPausesABatchDoes(qos: Int) async throws {
        let broker = try TestBroker()
        let topic = uniqueName("coalesce")
        let release = DispatchSemaphore(value: 0)
        var options = TestClient.options(broker, subscriptions: [MQTTSubscription(filter: "\(topic)/#", qos: qos)])
        options.readCoalescing = ReadCoalescing(minimumBatch: 4, delay: .microseconds(200))
        let receiver = try TestClient(options: options) { message in
            if message.payload == Array("hold".utf8) { release.wait() }
        }
        receiver.start()
        defer { receiver.stop() }
        defer { release.signal() }  // first: a failed expectation must not leave the thread held
        try await receiver.waitUntilSubscribed()
        let sender = try await TestClient.connected(to: broker)
        defer { sender.stop() }
        let witness = try await TestClient.connected(to: broker, subscriptions: [MQTTSubscription(filter: "\(topic)/#", qos: qos)])
        defer { witness.stop() }

        for n in 0..<20 {
            try sender.publish("\(topic)/t", "\(n)", qos: qos)
            try await receiver.waitForMessages(count: n + 1)
            // The receiver's turn goes on after the callback: a message sent at once could join
            // it (and a chain of four make a batch, as under load it did once in ~50 runs).
            try await Task.sleep(for: .milliseconds(30))
        }
        #expect(receiver.client.readPauseCount == 0, "a turn paused in a trickle")

        try sender.publish("\(topic)/t", "hold", qos: qos)
        for n in 20..<50 { try sender.publish("\(topic)/t", "\(n)", qos: qos) }
        // The broker has handled all of them (the witness has them): what it sent the held
        // receiver waits in that socket (at QoS 1 the first 20, the broker's in-flight limit).
        try await witness.waitForMessages(count: 51)
        release.signal()
        let all = try await receiver.waitForMessages(count: 51)
        let texts: [String] = all.map { String(decoding: $0.payload, as: UTF8.self) }
        let sent: [String] = (0..<20).map { String($0) } + ["hold"] + (20..<50).map { String($0) }
        #expect(texts == sent)
        try await Task.sleep(for: .milliseconds(50))
        #expect(receiver.client.readPauseCount >= 1, "no turn paused after a batch of 31")
        #expect(receiver.messages.count == 51)
    }
}
