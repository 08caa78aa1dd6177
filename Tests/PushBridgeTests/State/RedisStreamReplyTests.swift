import Testing
@testable import PushBridge

/// The stream replies as Redis 7 and Valkey give them: parsed without a server.
@Suite("Redis streams: the replies of XREADGROUP and XAUTOCLAIM")
struct RedisStreamReplyTests {
    static func entry(_ id: String, _ fields: [(String, String)]) -> RedisReply {
        .array([.bytes(Array(id.utf8)), .array(fields.flatMap { [.bytes(Array($0.0.utf8)), .bytes(Array($0.1.utf8))] })])
    }

    @Test func readReplyGivesTheEntriesOfTheStream() {
        let reply = RedisReply.array([.array([.bytes(Array("s".utf8)), .array([
            Self.entry("1-0", [("k", "a1"), ("t", "")]), Self.entry("2-5", [("k", "a2"), ("i", "{}")]),
        ])])])
        let entries = RedisStream.readReply(reply)
        #expect(entries.map(\.id) == ["1-0", "2-5"])
        #expect(entries[0].text("k") == "a1")
        #expect(entries[0].text("t") == "")
        #expect(entries[1].fields?["i"] == Array("{}".utf8))
        #expect(entries[1].text("missing") == nil)
    }

    @Test func nothingNewIsANullReplyAndNoOwnEntryAnEmptyList() {
        #expect(RedisStream.readReply(.null).isEmpty)
        #expect(RedisStream.readReply(.array([.array([.bytes(Array("s".utf8)), .array([])])])).isEmpty)
    }

    @Test func aPendingEntryDeletedFromTheStreamHasNoFields() {
        let reply = RedisReply.array([.array([.bytes(Array("s".utf8)), .array([.array([.bytes(Array("3-0".utf8)), .null])])])])
        #expect(RedisStream.readReply(reply) == [RedisStreamEntry(id: "3-0", fields: nil)])
    }

    @Test func autoclaimGivesTheNextStartAndTheEntriesAndIgnoresTheDeletedIDs() {
        let reply = RedisReply.array([.bytes(Array("7-0".utf8)), .array([Self.entry("5-0", [("k", "x")])]),
                                      .array([.bytes(Array("4-0".utf8))])])
        let (next, entries) = RedisStream.autoclaimReply(reply)
        #expect(next == "7-0")
        #expect(entries.map(\.id) == ["5-0"])
        let done = RedisStream.autoclaimReply(.array([.bytes(Array("0-0".utf8)), .array([]), .array([])]))
        #expect(done.next == "0-0" && done.entries.isEmpty)
        #expect(RedisStream.autoclaimReply(.error("ERR")).next == "0-0")
    }
}

/// The worker queue's listing and removal (a shared store's entries taken over by another replica).
@Suite("Outputs: the work queue's listing and removal")
struct WorkQueueRemovalTests {
    static func d(_ key: String, entry: String? = nil, due: Double = 0) -> PendingDelivery {
        var d = PendingDelivery(row: nil, entry: entry, key: key, target: "", item: [], created: 0)
        d.due = due
        return d
    }

    @Test func removesFromTheReadyAndTheWaitingOnes() {
        var q = WorkQueue()
        q.append(contentsOf: [Self.d("a", entry: "1-0"), Self.d("b", entry: "2-0"), Self.d("c", entry: "3-0")])
        _ = q.popReady()
        q.wait(Self.d("w", entry: "4-0", due: 100))
        #expect(q.all.map(\.key) == ["b", "c", "w"])
        let lost: Set<String> = ["2-0", "4-0", "9-9"]
        #expect(q.remove { $0.entry.map(lost.contains) ?? false }.map(\.key) == ["b", "w"])
        #expect(q.all.map(\.key) == ["c"])
        #expect(q.count == 1 && q.readyCount == 1 && q.nextDue == nil)
        #expect(q.popReady()?.key == "c")
        #expect(q.remove { _ in true }.isEmpty)
    }
}
