/// The filter memory's rows in the journal's database: `dedupe`, `rate_limit` and `changed`
/// remember across a restart when `journal` is set.
///
/// One table, `filter_memory(filter, key, value)`, keyed by the filter's memory identity
/// and the key; written in batches by `FilterMemoryWriter`, read once at start. Plain
/// values: the filter memory's own types (`FilterMemoryRow`, `FilterMemoryChanges`) are
/// converted above the journal (`JournalFilterMemoryRows.swift`).
extension Journal {
    static let filterMemorySchema = """
        CREATE TABLE IF NOT EXISTS filter_memory(
            filter TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
            PRIMARY KEY(filter, key)) WITHOUT ROWID;
        """

    /// Every stored row: the filter's memory identity, the key and the stored value. The rows of
    /// one filter share one identity string (a million keys hold one copy, not a million).
    func loadFilterMemoryRows() throws(SQLiteError) -> [(filter: String, key: String, value: String)] {
        try withDatabase(schema: Self.filterMemorySchema) { db throws(SQLiteError) -> [(filter: String, key: String, value: String)] in
            var identity = ""
            return try db.prepare("SELECT filter, key, value FROM filter_memory").rows { q in
                let filter = q.text(0) ?? ""
                if filter != identity { identity = filter }
                return (filter: identity, key: q.text(1) ?? "", value: q.text(2) ?? "")
            }
        }
    }

    /// Writes one batch of changes in one transaction: the filters whose rows all go, then
    /// each row's new value (`nil` deletes the row).
    func saveFilterMemory(rows: [(filter: String, key: String, value: String?)],
                                 droppedFilters: [String]) throws(SQLiteError) {
        guard !rows.isEmpty || !droppedFilters.isEmpty else { return }
        try withDatabase(schema: Self.filterMemorySchema) { db throws(SQLiteError) in
            let upsert = try db.prepare("INSERT OR REPLACE INTO filter_memory(filter, key, value) VALUES (?1, ?2, ?3)")
            let delete = try db.prepare("DELETE FROM filter_memory WHERE filter = ?1 AND key = ?2")
            let dropFilter = try db.prepare("DELETE FROM filter_memory WHERE filter = ?1")
            try db.transaction { () throws(SQLiteError) in
                for filter in droppedFilters { try dropFilter.bound(filter).run() }
                for row in rows {
                    if let value = row.value {
                        try upsert.bound(row.filter, row.key, value).run()
                    } else {
                        try delete.bound(row.filter, row.key).run()
                    }
                }
            }
        }
    }
}
