/// The conditions' rows in the journal's database (the alert lifecycle's memory across a
/// restart or a crash): one table, `conditions(route, key, value)`, `value` being the
/// condition's own text. Storage only: written on each transition, read once at start.
extension Journal {
    static let conditionsSchema = """
        CREATE TABLE IF NOT EXISTS conditions(
            route TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
            PRIMARY KEY(route, key)) WITHOUT ROWID;
        """

    /// Every stored condition as `(route, key, value)`.
    package func loadConditions() throws(SQLiteError) -> [(route: String, key: String, value: String)] {
        try store.withLock { s throws(SQLiteError) -> [(route: String, key: String, value: String)] in
            try s.commitBatch()
            try s.db.execute(Self.conditionsSchema)
            let q = try s.db.prepare("SELECT route, key, value FROM conditions")
            var rows: [(route: String, key: String, value: String)] = []
            while try q.step() { rows.append((q.text(0) ?? "", q.text(1) ?? "", q.text(2) ?? "")) }
            return rows
        }
    }

    /// Stores (`value` set) or forgets (`nil`) the condition of `route` and `key`, committed at once.
    package func saveCondition(route: String, key: String, value: String?) throws(SQLiteError) {
        try store.withLock { s throws(SQLiteError) in
            try s.commitBatch()
            try s.db.execute(Self.conditionsSchema)
            let q: SQLiteStatement
            if let value {
                q = try s.db.prepare("INSERT OR REPLACE INTO conditions(route, key, value) VALUES (?1, ?2, ?3)")
                q.bind(3, value)
            } else {
                q = try s.db.prepare("DELETE FROM conditions WHERE route = ?1 AND key = ?2")
            }
            q.bind(1, route)
            q.bind(2, key)
            try q.run()
        }
    }
}
