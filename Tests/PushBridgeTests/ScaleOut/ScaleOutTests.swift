import Foundation
import Testing
@testable import PushBridge

/// Three real `pushbridge run` replicas on one mosquitto (docs/operations.md, "Scaling out"): what `partition:`
/// keeps (per-topic order, topic-keyed filter memory, a replica's topics across its crash)
/// and, on the same traffic, what `share:` loses on a round-robin broker.
@Suite("Scale-out: three replicas", .serialized)
struct ScaleOutTests {
    static let topics = 50
    static let perTopic = 60           // 3 000 messages
    static let reports = 30

    /// A broker that queues without limit (mosquitto's default `max_queued_messages` 1000
    /// would drop part of a flood queued for one slow or absent replica).
    static func broker() throws -> TestBroker {
        try TestBroker(TestBroker.Options(extraConfig: ["max_queued_messages 0"]))
    }

    /// Runs the same traffic through three replicas in `mode`: 3 000 numbered messages over
    /// 50 topics, then 30 identical reports on one topic behind a topic-keyed dedupe.
    /// Returns what reached the display topics, the report deliveries and each replica's
    /// last stats.
    static func run(_ mode: ReplicaSet.Mode) async throws -> (log: DisplayLog, reports: Int, stats: [JSONValue], cpu: [Double]) {
        let broker = try broker()
        let set = try ReplicaSet(broker: broker, mode: mode)
        let display = try await TestClient.connected(
            to: broker, subscriptions: [MQTTSubscription(filter: "display/\(set.prefix)/#", qos: 1)])
        defer { display.stop(flushTimeout: .zero) }
        try await set.startAll()
        // `run` logs what `check` warns about when it starts.
        let warned = set.process(0)?.stderr.contains("warning: route 'report' subscribes with 'share: pushbridge'") ?? false
        #expect(warned == (mode == .share), "\(set.process(0)?.stderr ?? "")")
        let publisher = try await TestClient.connected(to: broker)
        defer { publisher.stop(flushTimeout: .zero) }
        try await publishStream(publisher, topics: (0..<topics).map(set.streamTopic), perTopic: perTopic)
        for _ in 0..<reports { try publisher.publish(set.reportTopic("door"), #"{"state":"on"}"#, qos: 1) }
        try await publisher.waitUntilAcknowledged("reports flushed", timeout: .seconds(30))
        try await display.waitForDistinct("stream messages displayed", count: topics * perTopic, timeout: .seconds(60),
                                          key: DisplayLog.key)
        let cpu = set.cpuSeconds()
        // Each replica finishes what it holds (the reports too) and publishes its last stats.
        let results = await set.stopAll()
        for r in results { #expect(r.exitedNormally && r.status == 0, "stderr: \(r.stderr.suffix(800))") }
        let stats = try await set.retainedStats()
        let delivered = stats.reduce(0) { $0 + Int(total($1, "delivered")) }
        try await display.waitForMessages(count: delivered, timeout: .seconds(20))  // the replicas' delivered
        let messages = display.messages
        let log = DisplayLog(messages)
        let reportTopic = "display/" + set.reportTopic("door")
        return (log, messages.filter { $0.topic == reportTopic }.count, stats, cpu)
    }

    @Test("partition: 3 000 QoS 1 messages over 50 topics arrive once each, in order per topic; a topic-keyed dedupe lets 1 of 30 reports through",
          .timeLimit(.minutes(3)))
    func partitionKeepsOrderAndMemory() async throws {
        let (log, reports, stats, cpu) = try await Self.run(.partition)
        let all = Self.topics * Self.perTopic + Self.reports
        print("scale-out partition: \(log.total) display messages for \(Self.topics * Self.perTopic), "
              + "\(log.duplicates) duplicate(s), \(log.inversions) order inversion(s); \(reports) of \(Self.reports) identical reports delivered; "
              + "CPU per replica \(cpu.map { String(format: "%.2f", $0) }.joined(separator: " ")) s")
        #expect(log.duplicates == 0)
        #expect(log.inversions == 0)
        #expect(reports == 1)
        // Every message is received by exactly one replica and skipped by the other two.
        let received = stats.map { Int(total($0, "received")) }
        #expect(received.reduce(0, +) == all, "received per replica: \(received)")
        #expect(stats.reduce(0) { $0 + Int(total($1, "partition_skipped")) } == 2 * all)
        #expect(received.filter { $0 > 0 }.count == 3, "the topics spread over all three: \(received)")
        for s in stats {
            #expect(total(s, "received") == total(s, "delivered") + total(s, "suppressed"), "\(s)")
        }
        #expect(stats.reduce(0) { $0 + Int(total($1, "suppressed")) } == Self.reports - 1)
    }

    @Test("share: the same traffic arrives once each but out of order per topic, and the dedupe lets one report through per replica",
          .timeLimit(.minutes(3)))
    func shareOnARoundRobinBroker() async throws {
        let (log, reports, stats, cpu) = try await Self.run(.share)
        print("scale-out share: \(log.total) display messages for \(Self.topics * Self.perTopic), "
              + "\(log.duplicates) duplicate(s), \(log.inversions) order inversion(s); \(reports) of \(Self.reports) identical reports delivered; "
              + "CPU per replica \(cpu.map { String(format: "%.2f", $0) }.joined(separator: " ")) s")
        #expect(log.duplicates == 0)
        let received = stats.map { Int(total($0, "received")) }
        #expect(received.reduce(0, +) == Self.topics * Self.perTopic + Self.reports, "received per replica: \(received)")
        #expect(stats.allSatisfy { total($0, "partition_skipped") == 0 })
        // What this test documents rather than demands: mosquitto hands one topic's messages
        // round-robin, so each replica's dedupe passes its first report (up to 3), and the
        // three replicas publish one topic's messages concurrently.
        #expect((1...3).contains(reports))
    }

    @Test("check warns (exit 0) for the share: replicas' dedupe, and refuses share: with partition:")
    func checkOnTheReplicaConfigs() async throws {
        let broker = try Self.broker()
        let shared = try ReplicaSet(broker: broker, mode: .share)
        let warned = try await ManagedProcess.run(PushbridgeBinary.path, ["check", "-c", shared.configs[0]])
        #expect(warned.status == 0 && warned.exitedNormally, "\(warned.stderr)")
        let warnings = warned.stderr.split(separator: "\n").filter { $0.contains(": warning: ") }
        #expect(warnings.count == 1, "\(warned.stderr)")
        #expect(warnings.first?.hasPrefix("\(shared.configs[0]):22:5: warning: route 'report' subscribes with 'share: pushbridge' and filter 'once-per-topic' (dedupe, line 28)") == true,
                "\(warned.stderr)")
        #expect(warned.stdout.contains("partition: off"))

        let partitioned = try ReplicaSet(broker: broker, mode: .partition)
        let ok = try await ManagedProcess.run(PushbridgeBinary.path, ["check", "-c", partitioned.configs[2]])
        #expect(ok.status == 0 && !ok.stderr.contains("warning"), "\(ok.stderr)")
        #expect(ok.stdout.contains("partition: index=2 count=3"))

        // `try` says when the replica would skip the topic, and who handles it.
        let topic = partitioned.streamTopic(7)
        let owner = Partition.owner(of: topic, count: 3)
        let other = (owner + 1) % 3
        let skipped = try await ManagedProcess.run(PushbridgeBinary.path, ["try", "-c", partitioned.configs[other], "-t", topic, "-m", "5"])
        #expect(skipped.status == 0 && skipped.stderr.contains("note: with partition index=\(other) count=3 this bridge skips '\(topic)' (partition_skipped); index \(owner) handles it"),
                "\(skipped.stderr)")
        #expect(skipped.stdout.contains("delivered"), "\(skipped.stdout)")
        let owned = try await ManagedProcess.run(PushbridgeBinary.path, ["try", "-c", partitioned.configs[owner], "-t", topic, "-m", "5"])
        #expect(owned.status == 0 && !owned.stderr.contains("note:"), "\(owned.stderr)")

        let both = try writeTempFile(String(contentsOfFile: shared.configs[0], encoding: .utf8)
            + "partition: {index: 0, count: 3}\n")
        let refused = try await ManagedProcess.run(PushbridgeBinary.path, ["check", "-c", both])
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(refused.stderr.contains("\(both):40:1: error: 'partition' and 'share' cannot be combined"), "\(refused.stderr)")
    }

    @Test("partition: a replica SIGKILLed mid-stream and back 5 s later delivers its topics' messages, nothing lost; the others never pause",
          .timeLimit(.minutes(3)))
    func replicaCrashAndReturn() async throws {
        let broker = try Self.broker()
        let set = try ReplicaSet(broker: broker, mode: .partition)
        let display = try await TestClient.connected(
            to: broker, subscriptions: [MQTTSubscription(filter: "display/\(set.prefix)/#", qos: 1)])
        defer { display.stop(flushTimeout: .zero) }
        try await set.startAll()
        let publisher = try await TestClient.connected(to: broker)
        defer { publisher.stop(flushTimeout: .zero) }
        let topicCount = 30, perTopic = 50, victim = 1
        let topics = (0..<topicCount).map(set.streamTopic)
        let victims = Set(topics.filter { Partition.owner(of: $0, count: 3) == victim })
        #expect(!victims.isEmpty && victims.count < topicCount)

        // ~7 s of paced traffic: 30 messages every 140 ms.
        let stream = Task { try await publishStream(publisher, topics: topics, perTopic: perTopic, batch: 30, pause: .milliseconds(140)) }
        // The scenario's timeline (not a synchronisation): kill one replica 1 s into the
        // stream and keep it down 5 s while its topics keep coming.
        try await Task.sleep(for: .seconds(1))
        await set.kill(victim)
        let killedAt = Date().timeIntervalSince1970
        try await Task.sleep(for: .seconds(5))
        let restartedAt = Date().timeIntervalSince1970
        try await set.start(victim)
        let sent = try await stream.value

        try await display.waitForDistinct("stream messages displayed", count: topicCount * perTopic, timeout: .seconds(60),
                                          key: DisplayLog.key)
        let log = DisplayLog(display.messages)
        for topic in topics { #expect(log.complete(topic, count: perTopic), "\(topic)") }

        // The victim's topics: messages published while it was down waited in its session.
        let sentWhileDown = sent.filter { victims.contains($0.topic) && $0.at > killedAt && $0.at < restartedAt }
        #expect(!sentWhileDown.isEmpty)
        for item in sentWhileDown {
            let first = log.byTopic[item.topic]?.first { $0.n == item.n }
            #expect((first?.at ?? 0) > restartedAt, "\(item.topic) #\(item.n) displayed while its replica was down")
        }
        // The other topics never waited: what was published during the outage (up to 2 s
        // before the restart) was displayed before the victim came back.
        let others = sent.filter { !victims.contains($0.topic) && $0.at > killedAt && $0.at < restartedAt - 2 }
        #expect(!others.isEmpty)
        let late = others.filter { item in
            (log.byTopic[item.topic]?.first { $0.n == item.n }?.at ?? .infinity) > restartedAt
        }
        #expect(late.isEmpty, "\(late.count) of \(others.count) messages of the running replicas waited for the restart")
        // Duplicates (a crash after a display publish, before its done mark) only on the
        // victim's topics, and with the id of the first copy.
        var duplicates = 0
        for (topic, items) in log.byTopic {
            let ids = Dictionary(grouping: items, by: \.n).mapValues { Set($0.map(\.id)) }
            let repeated = items.count - ids.count
            duplicates += repeated
            if repeated > 0 { #expect(victims.contains(topic), "\(topic)") }
            #expect(ids.values.allSatisfy { $0.count == 1 }, "\(topic): a duplicate with another id")
        }
        print("scale-out crash: replica \(victim) (\(victims.count) of \(topicCount) topics) down \(String(format: "%.1f", restartedAt - killedAt)) s, "
              + "\(sentWhileDown.count) of its messages waited and arrived, \(others.count) of the others' displayed meanwhile, \(duplicates) duplicate(s)")
        let results = await set.stopAll()
        for r in results { #expect(r.exitedNormally && r.status == 0, "stderr: \(r.stderr.suffix(800))") }
    }
}
