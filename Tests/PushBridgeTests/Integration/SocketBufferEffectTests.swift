import CSocketBuffers
import Foundation
import Testing
@testable import PushBridge

/// The `pushbridge` executable really reads and writes libmosquitto's sockets through its
/// socket buffers (Sources/CSocketBuffers, lent to the library by main.swift): the counts
/// each network thread logs at stop (debug), for a burst through a real mosquitto.
///
/// Fails when the executable stops installing the buffers (no count line), when a link
/// change loses the interposition of read/write (libmosquitto's calls no longer counted),
/// or when the buffers stop saving system calls. Skipped where the buffers are off by
/// design: a sanitizer build, or a libmosquitto they were not checked against.
@Suite("Integration: socket buffers in the executable",
       .enabled(if: pb_socketbuffers_active() != 0, "compiled out under a sanitizer"),
       .enabled(if: SocketBufferHooks.checkedLibraryVersions.contains(mosquittoLibraryVersion()),
                "not checked against libmosquitto \(mosquittoLibraryVersion())"))
struct SocketBufferEffectTests {
    /// One network thread's line: reads, read(2), writes, write(2), muted wake-up writes.
    struct Counts {
        var reads = 0, kernelReads = 0, writes = 0, kernelWrites = 0, muted = 0

        static func + (a: Counts, b: Counts) -> Counts {
            Counts(reads: a.reads + b.reads, kernelReads: a.kernelReads + b.kernelReads, writes: a.writes + b.writes,
                   kernelWrites: a.kernelWrites + b.kernelWrites, muted: a.muted + b.muted)
        }

        /// Every `socket buffers: …` line of `log`, or nil when there is none.
        static func parse(_ log: String) -> [Counts] {
            log.split(separator: "\n").compactMap { line -> Counts? in
                guard let range = line.range(of: "socket buffers: ") else { return nil }
                let n = line[range.upperBound...].split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
                // "6000 reads in 40 read(2), 2000 writes in 35 write(2), 2000 wake-up writes muted"
                guard n.count == 7 else { return nil }
                return Counts(reads: n[0], kernelReads: n[1], writes: n[3], kernelWrites: n[4], muted: n[6])
            }
        }
    }

    /// One route from `prefix/+` to `display/…` at `qos` in and out, debug log (the counts).
    static func config(broker: TestBroker, prefix: String, qos: Int, keepalive: String = "10s") throws -> String {
        try writeTempFile("""
            broker:
              host: 127.0.0.1
              port: \(broker.port)
              client_id: \(uniqueName("bridge"))
              keepalive: \(keepalive)
            routes:
              - name: burst
                topic: "\(prefix)/+"
                qos: \(qos)
                input: text
                alert:
                  body: "{{ raw }}"
            display:
              topic: "display/{{ topic }}"
              qos: \(qos)
            monitoring:
              status_topic: null
              stats_topic: null
              log_level: debug

            """)
    }

    /// 2 000 messages at `qos` through the executable and a real mosquitto, then a stop: what
    /// the display subscriber got before the stop (all 2 000: at QoS 0 90 % within 60 s and
    /// the rest within 5 s more) and how the bridge ended (its stderr has the counts).
    static func burst(qos: Int, _ name: String) async throws -> (shown: [InboundMessage], sent: Int, result: ProcessResult) {
        let broker = try TestBroker()
        let prefix = uniqueName(name)
        let config = try config(broker: broker, prefix: prefix, qos: qos)
        let display = try await TestClient.connected(to: broker, subscriptions: [MQTTSubscription(filter: "display/\(prefix)/#", qos: qos)])
        defer { display.stop() }
        let bridge = try await PushbridgeBinary.start(configFile: config, broker: broker)
        let publisher = try await TestClient.connected(to: broker)
        defer { publisher.stop() }
        let sent = 2000
        for n in 0..<sent { try publisher.publish("\(prefix)/t", "\(n)", qos: qos) }
        if qos == 0 { try await display.waitForMessages(count: sent * 9 / 10, timeout: .seconds(60)) }
        let shown = try await display.waitForMessages(count: sent, timeout: .seconds(qos == 0 ? 5 : 60))
        let result = await bridge.terminate(grace: .seconds(30))
        #expect(result.exitedNormally && result.status == 0, "\(result.stderr.suffix(600))")
        return (shown, sent, result)
    }

    @Test("a burst of 2000 QoS 0 messages: under half a read(2) and half a write(2) per message, inputs read and displays encoded by us, in order",
          .timeLimit(.minutes(2)))
    func burstThroughTheExecutable() async throws {
        // QoS 0 on loopback: all of them normally; the ratios below are per message displayed.
        let (shown, sent, result) = try await Self.burst(qos: 0, "buffers")
        let lines = Counts.parse(result.stderr)
        try #require(!lines.isEmpty, "no socket buffers line: the executable did not lend the buffers; stderr: \(result.stderr.suffix(600))")
        let total = lines.reduce(Counts(), +)
        let displayed = Double(shown.count)
        let direct = Self.directPackets(result.stderr) ?? 0
        let taken = Self.publishesRead(result.stderr) ?? 0
        let summary = "\(lines.count) line(s): \(total), \(Int(displayed)) displayed, \(direct) encoded by us, \(taken) read by us"
        // libmosquitto reads a packet with 3 reads (command, length, rest), and the intake
        // thread takes the plain QoS 0 PUBLISH packets from the same buffer: counted, they show
        // the interposition holds. What the buffers save: the read(2) and write(2) per packet.
        #expect(total.reads > 0 && Double(taken) > 0.9 * displayed, "\(summary)")
        #expect(Double(total.reads) + 3 * Double(taken) >= 3 * displayed, "\(summary)")
        #expect(Double(total.kernelReads) < 0.5 * displayed, "\(summary)")
        #expect(Double(total.writes) >= displayed, "\(summary)")
        #expect(Double(total.kernelWrites) < 0.5 * displayed, "\(summary)")
        // The displays are packets we encode on the intake thread (PublishPacket), with their
        // topic alias after the first; one that libmosquitto queues instead writes a wake-up
        // byte, which is muted (no system call).
        #expect(Double(direct) > 0.9 * displayed, "\(summary)")
        #expect(Double(total.muted + direct) >= displayed, "\(summary)")
        // What the broker made of our packets: every display, in order, with its full topic
        // (the alias resolved) and the bridge's hop property.
        #expect(try shown.map { jsonString(try JSONValue.parse($0.payload)["body"]) } == (0..<sent).map(String.init))
        #expect(shown.allSatisfy { $0.topic.hasSuffix("/t") && $0.topic.hasPrefix("display/") })
        #expect(shown.allSatisfy { $0.property(DisplayRenderer.hopProperty) != nil })
    }

    /// The network threads' count of PUBLISH packets they read themselves, from their
    /// `PUBLISH packets read by us: N` lines (nil: no such line).
    static func publishesRead(_ log: String) -> Int? { logCount(log, "PUBLISH packets read by us: ") }

    @Test("QoS 0 inputs of three kinds interleaved: the plain ones read by the bridge itself, those with user properties or a non-ASCII topic by libmosquitto; all shown, each kind in order",
          .timeLimit(.minutes(2)))
    func plainPublishesReadByUs() async throws {
        let broker = try TestBroker()
        let prefix = uniqueName("taken")
        let config = try writeTempFile("""
            broker:
              host: 127.0.0.1
              port: \(broker.port)
              client_id: \(uniqueName("bridge"))
            routes:
              - name: plain
                topic: "\(prefix)/plain/+"
                qos: 0
                input: text
                alert:
                  body: "{{ raw }}"
              - name: tagged
                topic: "\(prefix)/tagged/+"
                qos: 0
                input: text
                alert:
                  body: "{{ raw }} {{ properties.tag }}"
            display:
              topic: "display/{{ topic }}"
              qos: 0
            monitoring:
              status_topic: null
              stats_topic: null
              log_level: debug

            """)
        let display = try await TestClient.connected(to: broker, subscriptions: [MQTTSubscription(filter: "display/\(prefix)/#", qos: 0)])
        defer { display.stop() }
        let bridge = try await PushbridgeBinary.start(configFile: config, broker: broker)
        let publisher = try await TestClient.connected(to: broker)
        defer { publisher.stop() }
        let sent = 900
        for n in 0..<sent {
            switch n % 3 {
            case 0: try publisher.publish("\(prefix)/plain/t", "\(n)", qos: 0)
            case 1: try publisher.publish("\(prefix)/tagged/t", "\(n)", qos: 0, userProperties: [("tag", "p\(n)")])
            default: try publisher.publish("\(prefix)/plain/caf\u{E9}", "\(n)", qos: 0)
            }
        }
        try await display.waitForMessages(count: sent * 9 / 10, timeout: .seconds(60))
        let shown = try await display.waitForMessages(count: sent, timeout: .seconds(5))
        let result = await bridge.terminate(grace: .seconds(30))
        #expect(result.exitedNormally && result.status == 0, "\(result.stderr.suffix(600))")
        func bodies(_ topic: String) throws -> [String] {
            try shown.filter { $0.topic == "display/\(prefix)/\(topic)" }.map { jsonString(try JSONValue.parse($0.payload)["body"]) }
        }
        #expect(try bodies("plain/t") == stride(from: 0, to: sent, by: 3).map(String.init))
        #expect(try bodies("tagged/t") == stride(from: 1, to: sent, by: 3).map { "\($0) p\($0)" })
        #expect(try bodies("plain/caf\u{E9}") == stride(from: 2, to: sent, by: 3).map(String.init))
        // Read by us: the plain ones (one may fall to libmosquitto at the end of a read), never
        // one with properties or a non-ASCII topic.
        let read = try #require(Self.publishesRead(result.stderr), "no 'read by us' line; stderr: \(result.stderr.suffix(600))")
        #expect(read > sent / 3 / 2 && read <= sent / 3, "\(read) of \(sent / 3) plain inputs read by us")
    }

    @Test("plain QoS 0 inputs every 100 ms for 12 s with a 5 s keepalive: libmosquitto, which no longer sees them, pings, and the connection stays up",
          .timeLimit(.minutes(1)))
    func keepaliveWhileInputsAreReadByUs() async throws {
        let broker = try TestBroker()
        let prefix = uniqueName("kept")
        let config = try Self.config(broker: broker, prefix: prefix, qos: 0, keepalive: "5s")
        let display = try await TestClient.connected(to: broker, subscriptions: [MQTTSubscription(filter: "display/\(prefix)/#", qos: 0)])
        defer { display.stop() }
        let bridge = try await PushbridgeBinary.start(configFile: config, broker: broker)
        let publisher = try await TestClient.connected(to: broker)
        defer { publisher.stop() }
        let sent = 120
        for n in 0..<sent {
            try publisher.publish("\(prefix)/t", "\(n)", qos: 0)
            try await Task.sleep(for: .milliseconds(100))
        }
        let shown = try await display.waitForMessages(count: sent, timeout: .seconds(10))
        let result = await bridge.terminate(grace: .seconds(30))
        #expect(result.exitedNormally && result.status == 0, "\(result.stderr.suffix(600))")
        #expect(try shown.map { jsonString(try JSONValue.parse($0.payload)["body"]) } == (0..<sent).map(String.init))
        #expect(!result.stderr.contains("connection to"), "no connection lost: \(result.stderr.suffix(600))")
        let read = Self.publishesRead(result.stderr) ?? 0
        #expect(read > sent / 2, "\(read) of \(sent) read by us")
    }

    /// The intake thread's count of QoS 0 packets it encoded itself, from its `QoS 0 packets
    /// encoded by us: N` line (nil: no such line).
    static func directPackets(_ log: String) -> Int? { logCount(log, "QoS 0 packets encoded by us: ") }

    /// The intake thread's count of write(2) it made for the output connection, from its
    /// `another connection's writes from this thread: N write(2)` line (nil: no such line).
    static func guestWrites(_ log: String) -> Int? { logCount(log, "another connection's writes from this thread: ") }

    /// The sum of the numbers after `marker` on the lines of `log` that have it (nil: none has).
    static func logCount(_ log: String, _ marker: String) -> Int? {
        let counts = log.split(separator: "\n").compactMap { line -> Int? in
            guard let range = line.range(of: marker) else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }
        return counts.isEmpty ? nil : counts.reduce(0, +)
    }

    @Test("a burst of 2000 QoS 1 messages with QoS 1 displays: the inputs read and acknowledged by us, the displays written by the intake thread in batches; each shown once, in order",
          .timeLimit(.minutes(2)))
    func qos1DisplaysWrittenByTheIntakeThread() async throws {
        let (shown, sent, result) = try await Self.burst(qos: 1, "guest")
        #expect(try shown.map { jsonString(try JSONValue.parse($0.payload)["body"]) } == (0..<sent).map(String.init),
                "every display once, in the order of the inputs")
        let guest = try #require(Self.guestWrites(result.stderr),
                                 "no guest-write line: the output connection's displays were not written by the intake thread; stderr: \(result.stderr.suffix(600))")
        let lines = Counts.parse(result.stderr)
        try #require(lines.count == 2, "one line per connection; stderr: \(result.stderr.suffix(600))")
        // The inputs were read by the intake thread itself and acknowledged with our PUBACKs
        // (the broker sends at most 20 unacknowledged: all 2 000 arriving shows they count).
        let taken = Self.publishesRead(result.stderr) ?? 0
        #expect(Double(taken) > 0.9 * Double(sent), "\(taken) of \(sent) read by us")
        let summary = "guest write(2): \(guest); threads: \(lines)"
        // Batched: far fewer write(2) than displays, and most of them the intake thread's.
        #expect(guest > 0 && Double(guest) < 0.5 * Double(sent), "\(summary)")
        #expect(Double(lines.map(\.kernelWrites).reduce(0, +) + guest) < 0.75 * Double(sent), "\(summary)")
    }
}
