import Foundation
import Testing
@testable import PushBridge

/// A journal in a fresh temp directory, removed by `deinit`.
final class TempJournalDirectory: Sendable {
    let path: String

    init() {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("pushbridge-journal-\(UUID().uuidString)").path
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func config(fsync: FsyncPolicy = .interval, maxMessages: Int = 100) -> JournalConfig {
        var c = JournalConfig()
        c.path = path
        c.fsync = fsync
        c.maxMessages = maxMessages
        return c
    }

    var file: String { path + "/" + Journal.fileName }
}

func sampleMessage(_ n: Int, topic: String = "home/door", qos: Int = 1, mid: Int32? = nil) -> InboundMessage {
    InboundMessage(topic: topic, payload: Array("payload \(n)".utf8), qos: qos, retain: n % 2 == 0,
                   userProperties: [("k", "v\(n)"), ("k", "again"), ("apns-id", "id-\(n)")],
                   receivedAt: 1_700_000_000 + Double(n) / 8, mid: mid ?? Int32(n))
}

@Suite("Journal")
struct JournalTests {
    @Test("a recorded message survives a reopen with every field and its id", arguments: [FsyncPolicy.always, .interval, .never])
    func roundTrip(fsync: FsyncPolicy) throws {
        let dir = TempJournalDirectory()
        do {
            let j = try Journal(config: dir.config(fsync: fsync))
            for n in 1...3 { _ = try j.record(sampleMessage(n), id: "id-\(n)") }
            #expect(j.openCount == 3)
        }
        let j = try Journal(config: dir.config(fsync: fsync))
        #expect(j.openCount == 3)
        let entries = try j.openEntries()
        #expect(entries.map(\.id) == ["id-1", "id-2", "id-3"])
        #expect(entries.map(\.seq) == entries.map(\.seq).sorted())
        for (i, e) in entries.enumerated() {
            let m = sampleMessage(i + 1)
            #expect(e.message.topic == m.topic)
            #expect(e.message.payload == m.payload)
            #expect(e.message.qos == m.qos)
            #expect(e.message.retain == m.retain)
            #expect(e.message.receivedAt == m.receivedAt)
            #expect(e.message.mid == m.mid)
            #expect(e.message.userProperties.map(\.name) == m.userProperties.map(\.name))
            #expect(e.message.userProperties.map(\.value) == m.userProperties.map(\.value))
        }
    }

    @Test("empty and binary payloads are kept byte for byte")
    func binaryPayloads() throws {
        let dir = TempJournalDirectory()
        let j = try Journal(config: dir.config())
        let payloads: [[UInt8]] = [[], [0], [0xff, 0xfe, 0, 1], Array(repeating: 0x41, count: 200_000)]
        for (i, p) in payloads.enumerated() {
            _ = try j.record(InboundMessage(topic: "t/\(i)", payload: p, qos: 1, receivedAt: 1, mid: Int32(i)), id: "x\(i)")
        }
        #expect(try j.openEntries().map(\.message.payload) == payloads)
    }

    @Test("done messages are not replayed once flushed; unflushed marks replay (at least once)")
    func doneMarks() throws {
        let dir = TempJournalDirectory()
        do {
            let j = try Journal(config: dir.config())
            let seqs = try (1...5).map { try j.record(sampleMessage($0), id: "id-\($0)") }
            j.markDone(seqs[0])
            j.markDone(seqs[2])
            #expect(j.openCount == 3)
            try j.flush()
            j.markDone(seqs[4])  // never flushed: as if the process died here
            #expect(j.openCount == 2)
        }
        let j = try Journal(config: dir.config())
        #expect(try j.openEntries().map(\.id) == ["id-2", "id-4", "id-5"])
        #expect(j.openCount == 3)
    }

    @Test("compaction deletes done rows but keeps the newest tail for redelivery matching")
    func compaction() throws {
        let dir = TempJournalDirectory()
        let j = try Journal(config: dir.config(maxMessages: 10_000))
        let total = Int(Journal.redeliveryTail) + 500
        var seqs: [Int64] = []
        for n in 0..<total { seqs.append(try j.record(sampleMessage(n, mid: Int32(n % 60_000 + 1)), id: "id-\(n)")) }
        for s in seqs.dropLast() { j.markDone(s) }
        try j.compact(checkpoint: true)
        #expect(try j.rowCount() == Int(Journal.redeliveryTail))
        #expect(try j.openEntries().map(\.id) == ["id-\(total - 1)"])
        // The WAL was truncated by the checkpoint.
        let wal = try FileManager.default.attributesOfItem(atPath: dir.file + "-wal")[.size] as? Int
        #expect(wal == 0)
    }

    @Test("isFull at max_messages; done marks make room at once")
    func fullness() throws {
        let dir = TempJournalDirectory()
        let j = try Journal(config: dir.config(maxMessages: 3))
        let a = try j.record(sampleMessage(1), id: "a")
        _ = try j.record(sampleMessage(2), id: "b")
        #expect(!j.isFull)
        _ = try j.record(sampleMessage(3), id: "c")
        #expect(j.isFull)
        j.markDone(a)
        #expect(!j.isFull)
    }

    @Test("a redelivery (same mid, topic, payload) before any new message is recognized; the first new one closes the window")
    func redeliveryWindow() throws {
        let dir = TempJournalDirectory()
        do {
            let j = try Journal(config: dir.config())
            for n in 1...4 { _ = try j.record(sampleMessage(n), id: "id-\(n)") }
        }
        let j = try Journal(config: dir.config())
        #expect(j.redelivery(of: sampleMessage(3))?.id == "id-3")
        // QoS 0 never matches and does not close the window.
        #expect(j.redelivery(of: sampleMessage(4, qos: 0)) == nil)
        #expect(j.redelivery(of: sampleMessage(4))?.id == "id-4")
        // Taken once only.
        var again = sampleMessage(4)
        again.payload = Array("different".utf8)
        #expect(j.redelivery(of: again) == nil)  // not a match: closes
        #expect(j.redelivery(of: sampleMessage(1)) == nil)
    }

    @Test("same mid with another topic or payload is not a redelivery")
    func redeliveryNeedsSameContent() throws {
        let dir = TempJournalDirectory()
        do {
            let j = try Journal(config: dir.config())
            _ = try j.record(sampleMessage(7), id: "seven")
        }
        let j = try Journal(config: dir.config())
        #expect(j.redelivery(of: sampleMessage(7, topic: "other")) == nil)
        let j2 = try Journal(config: dir.config())
        var m = sampleMessage(7)
        m.payload = Array("x".utf8)
        #expect(j2.redelivery(of: m) == nil)
        let j3 = try Journal(config: dir.config())
        j3.closeRedeliveryWindow()
        #expect(j3.redelivery(of: sampleMessage(7)) == nil)
    }

    @Test("a fresh journal has no window and nothing open")
    func fresh() throws {
        let dir = TempJournalDirectory()
        let j = try Journal(config: dir.config())
        #expect(j.openCount == 0)
        #expect(try j.openEntries().isEmpty)
        #expect(j.redelivery(of: sampleMessage(1)) == nil)
    }

    @Test("an unusable path is an error naming it")
    func badPath() throws {
        var c = JournalConfig()
        c.path = "/proc/pushbridge-cannot-create-\(UUID().uuidString)"
        #expect(throws: SQLiteError.self) { try Journal(config: c) }
        do { _ = try Journal(config: c) } catch { #expect("\(error)".contains("/proc/pushbridge-cannot-create")) }
    }

    @Test("a WAL torn in the middle of a record opens, keeping a whole prefix")
    func tornWAL() throws {
        let dir = TempJournalDirectory()
        let copy = TempJournalDirectory()
        let j = try Journal(config: dir.config(fsync: .never))
        let count = 40
        for n in 1...count { _ = try j.record(sampleMessage(n), id: "id-\(n)") }
        // Copy the files while the journal is open: what a SIGKILL leaves behind.
        try FileManager.default.createDirectory(atPath: copy.path, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: dir.file, toPath: copy.file)
        let wal = try Data(contentsOf: URL(fileURLWithPath: dir.file + "-wal"))
        #expect(wal.count > 32 + 4096)
        // Cut inside the last frame (header 32 bytes; frames 24 + page size).
        let cut = wal.count - 1000
        try wal.prefix(cut).write(to: URL(fileURLWithPath: copy.file + "-wal"))
        let reopened = try Journal(config: copy.config(fsync: .never))
        let ids = try reopened.openEntries().map(\.id)
        #expect(ids.count >= count - 2 && ids.count < count)
        #expect(ids == (1...ids.count).map { "id-\($0)" })
        // And it keeps working.
        _ = try reopened.record(sampleMessage(99), id: "after")
        #expect(try reopened.openEntries().last?.id == "after")
    }
}

@Suite("UserPropertyCoding")
struct UserPropertyCodingTests {
    @Test("round trip keeps order, repeats, empty and non-ASCII strings")
    func roundTrip() {
        let cases: [[(name: String, value: String)]] = [
            [], [("a", "")], [("", "")], [("k", "1"), ("k", "2")], [("ключ", "värde 🚪"), ("x", String(repeating: "y", count: 70_000))],
        ]
        for props in cases {
            let decoded = UserPropertyCoding.decode(UserPropertyCoding.encode(props))
            #expect(decoded?.map(\.name) == props.map(\.name))
            #expect(decoded?.map(\.value) == props.map(\.value))
        }
    }

    @Test("truncated or foreign bytes decode to nil", arguments: [
        [UInt8]([0, 0, 0]), [0, 0, 0, 5, 0x61], [0, 0, 0, 1, 0x61], [0, 0, 0, 1, 0x61, 0, 0, 0, 9, 0x62],
    ])
    func garbage(bytes: [UInt8]) {
        #expect(UserPropertyCoding.decode(bytes) == nil)
    }

    @Test("the format is length-prefixed big-endian")
    func format() {
        #expect(UserPropertyCoding.encode([("ab", "c")]) == [0, 0, 0, 2, 0x61, 0x62, 0, 0, 0, 1, 0x63])
    }
}

@Suite("IntakeLimiter")
struct IntakeLimiterTests {
    @Test("tryEnter takes places up to the limit; leave frees one")
    func places() {
        let l = IntakeLimiter(limit: 2)
        #expect(l.tryEnter())
        #expect(l.tryEnter())
        #expect(!l.tryEnter())
        #expect(l.inFlight == 2)
        l.leave()
        #expect(l.tryEnter())
        #expect(l.inFlight == 2)
    }

    @Test("a limit below 1 is 1")
    func minimum() {
        let l = IntakeLimiter(limit: 0)
        #expect(l.limit == 1)
        #expect(l.tryEnter())
        #expect(!l.tryEnter())
    }

    @Test("enter waits for a place another thread frees")
    func waits() {
        let l = IntakeLimiter(limit: 1)
        #expect(l.tryEnter())
        Thread.detachNewThread {
            usleep(20_000)  // holds the place a while: that is the wait under test
            l.leave()
        }
        #expect(l.enter(maxWait: .seconds(30)))
        #expect(l.inFlight == 1)
    }

    @Test("enter overruns by one after its bounded wait; force always takes a place")
    func overrun() {
        let l = IntakeLimiter(limit: 1)
        #expect(l.tryEnter())
        #expect(!l.enter(maxWait: .milliseconds(5)))
        #expect(l.inFlight == 2)
        l.force()
        #expect(l.inFlight == 3)
        #expect(!l.tryEnter())
    }
}

@Suite("Journal group commit")
struct JournalGroupCommitTests {
    /// Rows another connection sees: what a crash right now would leave.
    func committedRows(_ dir: TempJournalDirectory) throws -> Int {
        let reader = try SQLiteDatabase(path: dir.file)
        return Int(try reader.scalar("SELECT count(*) FROM messages") ?? "-1") ?? -1
    }

    @Test("grouped records become durable together at commitBatch, not before")
    func commitBatch() throws {
        let dir = TempJournalDirectory()
        let j = try Journal(config: dir.config())
        j.groupCommits()
        let seqs = try (1...5).map { try j.record(sampleMessage($0), id: "id-\($0)") }
        #expect(seqs == seqs.sorted())
        #expect(j.openCount == 5)
        #expect(try committedRows(dir) == 0)
        try j.commitBatch()
        #expect(try committedRows(dir) == 5)
        _ = try j.record(sampleMessage(6), id: "id-6")  // the next batch opens again
        #expect(try committedRows(dir) == 5)
        try j.commitBatch()
        try j.commitBatch()  // nothing open: no error
        #expect(try committedRows(dir) == 6)
    }

    @Test("without groupCommits every record commits at once")
    func autocommit() throws {
        let dir = TempJournalDirectory()
        let j = try Journal(config: dir.config())
        _ = try j.record(sampleMessage(1), id: "id-1")
        #expect(try committedRows(dir) == 1)
    }

    @Test("done marks and compaction commit an open batch first", arguments: [false, true])
    func otherWritersCommitFirst(compact: Bool) throws {
        let dir = TempJournalDirectory()
        let j = try Journal(config: dir.config())
        j.groupCommits()
        let first = try j.record(sampleMessage(1), id: "id-1")
        try j.commitBatch()
        _ = try j.record(sampleMessage(2), id: "id-2")
        _ = try j.record(sampleMessage(3), id: "id-3")
        j.markDone(first)
        if compact { try j.compact(checkpoint: true) } else { try j.flush() }
        #expect(try committedRows(dir) == 3)
        #expect(try j.openEntries().map(\.id) == ["id-2", "id-3"])
    }

    @Test("a batch never committed is gone after a crash (its PUBACKs were never written)")
    func uncommittedBatchIsLost() throws {
        let dir = TempJournalDirectory()
        do {
            let j = try Journal(config: dir.config())
            j.groupCommits()
            _ = try j.record(sampleMessage(1), id: "id-1")
            try j.commitBatch()
            _ = try j.record(sampleMessage(2), id: "id-2")
        }
        let j = try Journal(config: dir.config())
        #expect(try j.openEntries().map(\.id) == ["id-1"])
    }
}
