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
    func loadConditions() throws(SQLiteError) -> [(route: String, key: String, value: String)] {
        try withDatabase(schema: Self.conditionsSchema) { db throws(SQLiteError) -> [(route: String, key: String, value: String)] in
            try db.prepare("SELECT route, key, value FROM conditions").rows { q in (q.text(0) ?? "", q.text(1) ?? "", q.text(2) ?? "") }
        }
    }

    /// Stores (`value` set) or forgets (`nil`) the condition of `route` and `key`, committed at once.
    func saveCondition(route: String, key: String, value: String?) throws(SQLiteError) {
        try withDatabase(schema: Self.conditionsSchema) { db throws(SQLiteError) in
            if let value {
                try db.prepare("INSERT OR REPLACE INTO conditions(route, key, value) VALUES (?1, ?2, ?3)").bound(route, key, value).run()
            } else {
                try db.prepare("DELETE FROM conditions WHERE route = ?1 AND key = ?2").bound(route, key).run()
            }
        }
    }
}
