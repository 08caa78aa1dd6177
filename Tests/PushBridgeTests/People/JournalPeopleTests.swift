import Foundation
import Testing
@testable import PushBridge

/// The people's tables in the journal: presence kept and read back, held alerts kept once and
/// released with their deliveries in one transaction, and the subscriptions' person column
/// added to a table an older version made.
@Suite("Journal: people")
struct JournalPeopleTests {
    static func journal() throws -> Journal {
        var c = JournalConfig()
        c.path = try makeTempDirectory()
        return try Journal(config: c)
    }

    @Test("presence rows: replaced per person, unknown kept as null")
    func presence() throws {
        let j = try Self.journal()
        try j.storePresence(PresenceRow(person: "alice", home: true, since: 10, lastAt: 20))
        try j.storePresence(PresenceRow(person: "bob", home: nil, since: 5, lastAt: 6))
        try j.storePresence(PresenceRow(person: "alice", home: false, since: 30, lastAt: 30))
        let rows = try j.presenceRows().sorted { $0.person < $1.person }
        #expect(rows == [PresenceRow(person: "alice", home: false, since: 30, lastAt: 30),
                         PresenceRow(person: "bob", home: nil, since: 5, lastAt: 6)])
    }

    @Test("a held alert is kept once per route and key; the release stores its deliveries and forgets it together")
    func held() throws {
        let j = try Self.journal()
        #expect(try j.holdAlert(route: "doorbell", key: "a1", item: Array("{}".utf8), files: ["t/x.jpg"], created: 1))
        #expect(try !j.holdAlert(route: "doorbell", key: "a1", item: Array("{}".utf8), files: [], created: 2), "a replay holds nothing twice")
        #expect(try j.holdAlert(route: "doorbell", key: "a2", item: Array("{}".utf8), files: [], created: 3))
        let held = try j.heldAlerts()
        #expect(held.map(\.key) == ["a1", "a2"])
        #expect(held[0].files == ["t/x.jpg"])
        let added = try j.releaseHeld(held.map(\.id), deliveries: [([("alice-phone", "a1", "")], held[0].item, held[0].files),
                                                                   ([("alice-phone", "a2", "")], held[1].item, [])], created: 4)
        #expect(added == [[true], [true]])
        #expect(try j.heldAlerts().isEmpty)
        #expect(try j.pendingOutputDeliveries(output: "alice-phone") == 2)
    }

    @Test("a subscriptions table without the person column gets it; the person is kept")
    func personColumn() throws {
        let j = try Self.journal()
        try j.withDatabase { db throws(SQLiteError) in
            try db.execute("""
                CREATE TABLE webpush_subscriptions(output TEXT NOT NULL, endpoint TEXT NOT NULL, p256dh BLOB NOT NULL,
                    auth BLOB NOT NULL, expiration INTEGER, added_at REAL NOT NULL, PRIMARY KEY(output, endpoint)) WITHOUT ROWID;
                """)
        }
        let store = try JournalSubscriptionStore(journal: j, output: "browsers")
        let point = try P256Key.generate().publicPoint
        _ = try store.upsert(WebPushSubscription(endpoint: "https://push.example.net/1", p256dh: point, auth: [UInt8](repeating: 1, count: 16),
                                                 expirationTime: nil, person: "alice"))
        _ = try store.upsert(WebPushSubscription(endpoint: "https://push.example.net/2", p256dh: point, auth: [UInt8](repeating: 2, count: 16),
                                                 expirationTime: nil))
        #expect(try store.all().map(\.person) == ["alice", nil])
        // Subscribing again with another name moves the subscription to that person.
        _ = try store.upsert(WebPushSubscription(endpoint: "https://push.example.net/2", p256dh: point, auth: [UInt8](repeating: 2, count: 16),
                                                 expirationTime: nil, person: "bob"))
        #expect(try store.all().map(\.person) == ["alice", "bob"])
        // The body's person must be a name.
        let keys = #""keys":{"p256dh":"\#(Base64URL.encode(point))","auth":"\#(Base64URL.encode([UInt8](repeating: 3, count: 16)))"}"#
        let bad = WebPushSubscription.parse(Array(#"{"endpoint":"https://push.example.net/3",\#(keys),"person":5}"#.utf8))
        #expect(bad == .failure(SubscriptionProblem("'person' must be a person's name (a string) or null")))
        let good = WebPushSubscription.parse(Array(#"{"endpoint":"https://push.example.net/3",\#(keys),"person":"alice"}"#.utf8))
        #expect((try? good.get())?.person == "alice")
        #expect((try? good.get()).map { String(decoding: $0.json, as: UTF8.self) }?.hasSuffix(#","person":"alice"}"#) == true)
    }
}
