import Foundation

/// A Web Push output's subscriptions in the journal's database, so they outlive restarts.
///
/// One table, `webpush_subscriptions(output, endpoint, p256dh, auth, expiration, added_at, person)`,
/// keyed by the output's name and the endpoint (two `webpush` outputs keep separate lists).
/// Each change commits at once (the journal's open batch first).
final class JournalSubscriptionStore: SubscriptionStore {
    /// The output whose subscriptions these are.
    package let output: String
    /// The most subscriptions kept for the output.
    let limit: Int
    private let journal: Journal

    static let schema = """
        CREATE TABLE IF NOT EXISTS webpush_subscriptions(
            output TEXT NOT NULL, endpoint TEXT NOT NULL, p256dh BLOB NOT NULL, auth BLOB NOT NULL,
            expiration INTEGER, added_at REAL NOT NULL,
            PRIMARY KEY(output, endpoint)) WITHOUT ROWID;
        """

    /// The columns added since the table was first made (a database an older version made gets them).
    static let columns = [("person", "TEXT")]

    /// The store of `output` in `journal` (the table is created when missing).
    init(journal: Journal, output: String, limit: Int = 1000) throws(SubscriptionStoreError) {
        self.journal = journal
        self.output = output
        self.limit = limit
        try run { db throws(SQLiteError) in
            try db.execute(Self.schema)
            try db.ensureColumns(Self.columns, of: "webpush_subscriptions")
        }
    }

    func upsert(_ subscription: WebPushSubscription) throws(SubscriptionStoreError) -> UpsertResult {
        try run { db throws(SQLiteError) -> UpsertResult in
            let exists = try db.prepare("SELECT 1 FROM webpush_subscriptions WHERE output = ?1 AND endpoint = ?2")
            let replacing = try exists.bound(output, subscription.endpoint).step()
            exists.reset()
            if !replacing {
                let count = try db.prepare("SELECT count(*) FROM webpush_subscriptions WHERE output = ?1").bound(output)
                _ = try count.step()
                if count.int64(0) >= limit { return .full }
            }
            // The first-added time stays when the keys are replaced (the list's order).
            let q = try db.prepare("""
                INSERT INTO webpush_subscriptions(output, endpoint, p256dh, auth, expiration, added_at, person)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                ON CONFLICT(output, endpoint) DO UPDATE SET p256dh = ?3, auth = ?4, expiration = ?5, person = ?7
                """)
            try q.bound(output, subscription.endpoint, subscription.p256dh, subscription.auth, subscription.expirationTime,
                        Date().timeIntervalSince1970, subscription.person).run()
            return replacing ? .replaced : .added
        }
    }

    @discardableResult
    func remove(endpoint: String) throws(SubscriptionStoreError) -> Bool {
        try run { db throws(SQLiteError) -> Bool in
            try db.prepare("DELETE FROM webpush_subscriptions WHERE output = ?1 AND endpoint = ?2").bound(output, endpoint).run()
            return db.changes > 0
        }
    }

    func all() throws(SubscriptionStoreError) -> [WebPushSubscription] {
        try run { db throws(SQLiteError) -> [WebPushSubscription] in
            try db.prepare("""
                SELECT endpoint, p256dh, auth, expiration, person FROM webpush_subscriptions
                WHERE output = ?1 ORDER BY added_at, endpoint
                """).bound(output).rows { q in
                    WebPushSubscription(endpoint: q.text(0) ?? "", p256dh: q.blob(1), auth: q.blob(2),
                                        expirationTime: q.text(3).flatMap { Int64($0) }, person: q.text(4))
                }
        }
    }

    /// `body` on the journal's connection, after committing its open batch; SQLite's error as the store's.
    private func run<T: Sendable>(_ body: @Sendable (SQLiteDatabase) throws(SQLiteError) -> T) throws(SubscriptionStoreError) -> T {
        do {
            return try journal.withDatabase(body)
        } catch { throw SubscriptionStoreError("web push subscriptions in '\(journal.file)': \(error)") }
    }
}
