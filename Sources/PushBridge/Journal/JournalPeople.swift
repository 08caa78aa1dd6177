/// One alert kept by `when_nobody: hold` (docs/people.md), as the journal stores it.
struct HeldAlertRow: Sendable, Equatable {
    /// Deliveries of held alerts go in this order.
    var id: Int64
    var route: String
    /// The alert's id.
    var key: String
    /// The alert's display JSON (as the outputs send it).
    var item: [UInt8]
    /// Its stored attachment files (`OutputItem.files`).
    var files: [String]
    var created: Double
}

/// One person's presence as the journal keeps it: `home` (`nil`: unknown), since when, and
/// when the newest presence message came.
struct PresenceRow: Sendable, Equatable {
    var person: String
    var home: Bool?
    var since: Double
    var lastAt: Double
}

/// The people's presence and the held alerts in the journal's database: presence is restored
/// at start; a held alert is stored when it is held and removed in the same transaction that
/// hands its deliveries to the outputs, so a crash neither loses nor repeats it.
///
/// Tables `presence(person, home, since, last_at)` and `held_alerts(id, route, key, item,
/// files, created)`.
extension Journal {
    static let peopleSchema = """
        CREATE TABLE IF NOT EXISTS presence(
            person TEXT PRIMARY KEY, home INTEGER, since REAL NOT NULL, last_at REAL NOT NULL) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS held_alerts(
            id INTEGER PRIMARY KEY AUTOINCREMENT, route TEXT NOT NULL, key TEXT NOT NULL, item BLOB NOT NULL,
            files TEXT NOT NULL DEFAULT '', created REAL NOT NULL, UNIQUE(route, key));
        """

    /// Every person's kept presence.
    func presenceRows() throws(SQLiteError) -> [PresenceRow] {
        try withDatabase(schema: Self.peopleSchema) { db throws(SQLiteError) -> [PresenceRow] in
            try db.prepare("SELECT person, home, since, last_at FROM presence").rows { q in
                let home: Bool? = q.text(1).flatMap { Int64($0) }.map { $0 != 0 }
                return PresenceRow(person: q.text(0) ?? "", home: home, since: q.double(2), lastAt: q.double(3))
            }
        }
    }

    /// Keeps `row` (replacing the person's earlier one).
    func storePresence(_ row: PresenceRow) throws(SQLiteError) {
        try withDatabase(schema: Self.peopleSchema) { db throws(SQLiteError) in
            let home: Int64? = row.home.map { $0 ? 1 : 0 }
            try db.prepare("INSERT OR REPLACE INTO presence(person, home, since, last_at) VALUES (?1, ?2, ?3, ?4)")
                .bound(row.person, home, row.since, row.lastAt).run()
        }
    }

    /// Stores a held alert; `false` when `(route, key)` was already held (a replayed message).
    @discardableResult
    func holdAlert(route: String, key: String, item: [UInt8], files: [String], created: Double) throws(SQLiteError) -> Bool {
        try withDatabase(schema: Self.peopleSchema) { db throws(SQLiteError) -> Bool in
            try db.prepare("INSERT OR IGNORE INTO held_alerts(route, key, item, files, created) VALUES (?1, ?2, ?3, ?4, ?5)")
                .bound(route, key, item, files.joined(separator: "\n"), created).run()
            return db.changes > 0
        }
    }

    /// The held alerts, oldest first.
    func heldAlerts() throws(SQLiteError) -> [HeldAlertRow] {
        try withDatabase(schema: Self.peopleSchema) { db throws(SQLiteError) -> [HeldAlertRow] in
            try db.prepare("SELECT id, route, key, item, files, created FROM held_alerts ORDER BY id").rows { q in
                HeldAlertRow(id: q.int64(0), route: q.text(1) ?? "", key: q.text(2) ?? "", item: q.blob(3),
                             files: (q.text(4) ?? "").split(separator: "\n").map(String.init), created: q.double(5))
            }
        }
    }

    /// In one transaction: stores the deliveries of released items (as `storeOutputDeliveries`
    /// does, one entry per item) and removes the held alerts `ids`. Returns, per item and row,
    /// whether the row is new.
    func releaseHeld(_ ids: [Int64], deliveries: [(rows: [(output: String, key: String, target: String)], item: [UInt8], files: [String])],
                     created: Double) throws(SQLiteError) -> [[Bool]] {
        try withDatabase(schema: Self.outputSchema + Self.peopleSchema) { db throws(SQLiteError) -> [[Bool]] in
            try db.ensureColumns(Self.outputColumns, of: "output_deliveries")
            let insert = try db.prepare("INSERT OR IGNORE INTO output_deliveries(output, key, target, item, created, files) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
            let remove = try db.prepare("DELETE FROM held_alerts WHERE id = ?1")
            return try db.transaction { () throws(SQLiteError) -> [[Bool]] in
                var added: [[Bool]] = []
                for d in deliveries {
                    let fileList = d.files.joined(separator: "\n")
                    var flags: [Bool] = []
                    for row in d.rows {
                        try insert.bound(row.output, row.key, row.target, d.item, created, fileList).run()
                        flags.append(db.changes > 0)
                    }
                    added.append(flags)
                }
                for id in ids { try remove.bound(id).run() }
                return added
            }
        }
    }
}
