/// One open digest window as the journal stores it.
struct DigestWindowRow: Sendable, Equatable {
    var route: String
    var key: String
    /// The id its summary will carry (the same after a restart: the outputs recognise a resend).
    var summaryID: String
    /// When its first alert came and when it ends (UNIX seconds).
    var opened: Double
    var ends: Double
    /// Alerts of the window delivered one by one (toward `max`).
    var sent: Int
}

/// One alert held for a digest's summary, as the journal stores it.
struct DigestHeldRow: Sendable, Equatable {
    /// The held alert's request id (a replayed message is held once).
    var id: String
    /// Its title (its body when it has none).
    var title: String
    /// A condition's key, else the alert's collapse id, else its source topic.
    var alertKey: String
    /// Its source topic.
    var topic: String
    /// When it was held (UNIX seconds).
    var at: Double
}

/// The digests' rows in the journal's database: the windows open now and the alerts they
/// hold, so that a crash loses no held alert and sends no summary twice. Two tables,
/// `digest_windows` (one row per window: a route and key can have an ended one whose summary
/// is on its way beside the open one) and `digest_held` (in the order held);
/// written on each change, read once at start, removed with the summary.
extension Journal {
    static let digestSchema = """
        CREATE TABLE IF NOT EXISTS digest_windows(
            route TEXT NOT NULL, key TEXT NOT NULL, summary_id TEXT NOT NULL,
            opened REAL NOT NULL, ends REAL NOT NULL, sent INTEGER NOT NULL,
            PRIMARY KEY(summary_id)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS digest_held(
            seq INTEGER PRIMARY KEY AUTOINCREMENT, summary_id TEXT NOT NULL, id TEXT NOT NULL,
            title TEXT NOT NULL, alert_key TEXT NOT NULL, topic TEXT NOT NULL, at REAL NOT NULL,
            UNIQUE(summary_id, id));
        """

    /// Every stored window (oldest first) with the alerts it holds, in the order they were held.
    func loadDigests() throws(SQLiteError) -> [(window: DigestWindowRow, held: [DigestHeldRow])] {
        try withDatabase(schema: Self.digestSchema) { db throws(SQLiteError) -> [(window: DigestWindowRow, held: [DigestHeldRow])] in
            let windows = try db.prepare("SELECT route, key, summary_id, opened, ends, sent FROM digest_windows ORDER BY opened").rows { q in
                DigestWindowRow(route: q.text(0) ?? "", key: q.text(1) ?? "", summaryID: q.text(2) ?? "",
                                opened: q.double(3), ends: q.double(4), sent: Int(q.int64(5)))
            }
            let held = try db.prepare("SELECT id, title, alert_key, topic, at FROM digest_held WHERE summary_id = ?1 ORDER BY seq")
            var out: [(window: DigestWindowRow, held: [DigestHeldRow])] = []
            for w in windows {
                let rows = try held.bound(w.summaryID).rows { q in
                    DigestHeldRow(id: q.text(0) ?? "", title: q.text(1) ?? "", alertKey: q.text(2) ?? "",
                                  topic: q.text(3) ?? "", at: q.double(4))
                }
                out.append((w, rows))
            }
            return out
        }
    }

    /// Stores a window (opened, or one more alert delivered), and the alert it now holds, in one transaction.
    func saveDigest(_ window: DigestWindowRow, held: DigestHeldRow? = nil) throws(SQLiteError) {
        try withDatabase(schema: Self.digestSchema) { db throws(SQLiteError) in
            let upsert = try db.prepare("INSERT OR REPLACE INTO digest_windows(route, key, summary_id, opened, ends, sent) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
            try db.transaction { () throws(SQLiteError) in
                try upsert.bound(window.route, window.key, window.summaryID, window.opened, window.ends, Int64(window.sent)).run()
                if let h = held {
                    try db.prepare("INSERT OR IGNORE INTO digest_held(summary_id, id, title, alert_key, topic, at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
                        .bound(window.summaryID, h.id, h.title, h.alertKey, h.topic, h.at).run()
                }
            }
        }
    }

    /// Forgets a window and what it held (its summary was handed on, or it ended holding nothing).
    func removeDigest(summaryID: String) throws(SQLiteError) {
        try withDatabase(schema: Self.digestSchema) { db throws(SQLiteError) in
            let window = try db.prepare("DELETE FROM digest_windows WHERE summary_id = ?1")
            let held = try db.prepare("DELETE FROM digest_held WHERE summary_id = ?1")
            try db.transaction { () throws(SQLiteError) in
                try window.bound(summaryID).run()
                try held.bound(summaryID).run()
            }
        }
    }
}
