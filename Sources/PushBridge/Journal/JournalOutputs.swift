/// One delivery to an output as stored in the journal: what to send, to which target.
struct OutputDeliveryRow: Sendable {
    /// The row's id: deliveries of one output are tried in this order.
    package var id: Int64
    package var output: String
    /// The item's id (the alert's id; a withdraw's `<alert_id>/withdraw`).
    package var key: String
    /// Which of the output's targets (empty for ntfy and webhook; a subscription for Web Push).
    package var target: String
    /// The item as JSON (the display message, or the withdraw).
    var item: [UInt8]
    /// The item's stored attachment files, as the attachment store names them (`OutputItem.files`).
    var files: [String] = []
    /// When it was handed to the output (seconds since 1970).
    var created: Double
}

/// The outputs' deliveries in the journal's database (docs/outputs.md: stored before it is
/// attempted, removed when the service accepted it).
///
/// One table, `output_deliveries`. A row is inserted when an item is handed to an output
/// and marked done on a 2xx answer (or a final rejection); done rows are kept for a bounded
/// tail (`doneTail` per output) so a replayed message — the journal replays a message whose
/// display acknowledgement a crash lost — is recognised by its `(output, key, target)` and
/// not delivered twice, then deleted.
extension Journal {
    /// Done rows kept per output to recognise a replay of what was already delivered.
    static let outputDoneTail: Int64 = 4096

    /// `files` holds the item's attachment files, one per line (empty without any). A database
    /// made before it had the column gets it (`outputColumns`).
    static let outputSchema = """
        CREATE TABLE IF NOT EXISTS output_deliveries(
            id INTEGER PRIMARY KEY AUTOINCREMENT, output TEXT NOT NULL, key TEXT NOT NULL,
            target TEXT NOT NULL, item BLOB NOT NULL, created REAL NOT NULL, done INTEGER NOT NULL DEFAULT 0,
            files TEXT NOT NULL DEFAULT '', UNIQUE(output, key, target));
        CREATE INDEX IF NOT EXISTS output_pending ON output_deliveries(output, done, id);
        """

    /// The columns added to `output_deliveries` since it was first made, with their definitions.
    /// `fell_back` is 1 once the row was handed to its output's fallback (never twice, also
    /// after a restart).
    static let outputColumns = [("files", "TEXT NOT NULL DEFAULT ''"), ("fell_back", "INTEGER NOT NULL DEFAULT 0")]

    /// Stores the deliveries of one item (one transaction); a `(output, key, target)` already
    /// stored is left as it is. Returns, per row, whether it is new.
    func storeOutputDeliveries(_ rows: [(output: String, key: String, target: String)], item: [UInt8],
                               files: [String] = [], created: Double) throws(SQLiteError) -> [Bool] {
        guard !rows.isEmpty else { return [] }
        return try withOutputTable { db throws(SQLiteError) -> [Bool] in
            let insert = try db.prepare("INSERT OR IGNORE INTO output_deliveries(output, key, target, item, created, files) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
            let fileList = files.joined(separator: "\n")
            return try db.transaction { () throws(SQLiteError) -> [Bool] in
                var added: [Bool] = []
                for row in rows {
                    try insert.bound(row.output, row.key, row.target, item, created, fileList).run()
                    added.append(db.changes > 0)
                }
                return added
            }
        }
    }

    /// Up to `limit` open deliveries of `output` after row `after`, oldest first.
    func openOutputDeliveries(output: String, after: Int64, limit: Int) throws(SQLiteError) -> [OutputDeliveryRow] {
        try withOutputTable { db throws(SQLiteError) -> [OutputDeliveryRow] in
            try db.prepare("SELECT id, key, target, item, created, files FROM output_deliveries WHERE output = ?1 AND done = 0 AND id > ?2 ORDER BY id LIMIT ?3")
                .bound(output, after, Int64(limit)).rows { q in
                    OutputDeliveryRow(id: q.int64(0), output: output, key: q.text(1) ?? "", target: q.text(2) ?? "",
                                      item: q.blob(3), files: (q.text(5) ?? "").split(separator: "\n").map(String.init),
                                      created: q.double(4))
                }
        }
    }

    /// Open deliveries of `output`.
    func pendingOutputDeliveries(output: String) throws(SQLiteError) -> Int {
        try withOutputTable { db throws(SQLiteError) -> Int in
            let q = try db.prepare("SELECT count(*) FROM output_deliveries WHERE output = ?1 AND done = 0").bound(output)
            return try q.step() ? Int(q.int64(0)) : 0
        }
    }

    /// Marks rows done (delivered, or finally rejected) and trims the done tail of `output`.
    func finishOutputDeliveries(_ ids: [Int64], output: String) throws(SQLiteError) {
        guard !ids.isEmpty else { return }
        try withOutputTable { db throws(SQLiteError) in
            let mark = try db.prepare("UPDATE output_deliveries SET done = 1 WHERE id = ?1")
            let trim = try db.prepare("""
                DELETE FROM output_deliveries WHERE output = ?1 AND done = 1 AND id <= (
                    SELECT id FROM output_deliveries WHERE output = ?1 AND done = 1 ORDER BY id DESC LIMIT 1 OFFSET ?2)
                """)
            try db.transaction { () throws(SQLiteError) in
                for id in ids { try mark.bound(id).run() }
                try trim.bound(output, Self.outputDoneTail).run()
            }
        }
    }

    /// Open deliveries of `output` handed over at or before `handedBefore` and not yet handed
    /// to its fallback, oldest first.
    func overdueOutputDeliveries(output: String, handedBefore: Double) throws(SQLiteError) -> [OutputDeliveryRow] {
        try withOutputTable { db throws(SQLiteError) -> [OutputDeliveryRow] in
            try db.prepare("SELECT id, key, target, item, created, files FROM output_deliveries WHERE output = ?1 AND done = 0 AND fell_back = 0 AND created <= ?2 ORDER BY id")
                .bound(output, handedBefore).rows { q in
                    OutputDeliveryRow(id: q.int64(0), output: output, key: q.text(1) ?? "", target: q.text(2) ?? "",
                                      item: q.blob(3), files: (q.text(5) ?? "").split(separator: "\n").map(String.init),
                                      created: q.double(4))
                }
        }
    }

    /// Marks rows as handed to their output's fallback.
    func markOutputFallbacks(_ ids: [Int64]) throws(SQLiteError) {
        guard !ids.isEmpty else { return }
        try withOutputTable { db throws(SQLiteError) in
            let mark = try db.prepare("UPDATE output_deliveries SET fell_back = 1 WHERE id = ?1")
            try db.transaction { () throws(SQLiteError) in
                for id in ids { try mark.bound(id).run() }
            }
        }
    }

    /// When the oldest open delivery of `output` not yet handed to its fallback was handed over.
    func oldestUnfallenOutputDelivery(output: String) throws(SQLiteError) -> Double? {
        try withOutputTable { db throws(SQLiteError) -> Double? in
            let q = try db.prepare("SELECT min(created) FROM output_deliveries WHERE output = ?1 AND done = 0 AND fell_back = 0").bound(output)
            guard try q.step(), q.text(0) != nil else { return nil }
            return q.double(0)
        }
    }

    /// `body` on the connection once `output_deliveries` exists with every column of
    /// `outputColumns` (added to a table an older version made).
    func withOutputTable<T: Sendable>(_ body: (SQLiteDatabase) throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        try withDatabase(schema: Self.outputSchema) { db throws(SQLiteError) -> T in
            try db.ensureColumns(Self.outputColumns, of: "output_deliveries")
            return try body(db)
        }
    }
}
