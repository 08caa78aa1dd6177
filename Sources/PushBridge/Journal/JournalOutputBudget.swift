/// An alert an output's budget holds for its route's next summary, as stored.
struct BudgetHeldRow: Sendable {
    /// The row's id: the held items of one output are summarised in this order.
    var id: Int64
    var route: String
    /// The item's id (`OutputItem.key`).
    var key: String
    /// The item as JSON.
    var item: [UInt8]
    /// When it was held (seconds since 1970).
    var heldAt: Double
}

/// The outputs' daily budgets in the journal's database (docs/outputs.md, "Budgets"): the
/// day's count per output (`output_budget`) and the alerts held for a summary
/// (`output_budget_held`), so a restart neither forgets the count nor loses or repeats a
/// held alert.
extension Journal {
    static let outputBudgetSchema = """
        CREATE TABLE IF NOT EXISTS output_budget(output TEXT PRIMARY KEY, day TEXT NOT NULL, used INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS output_budget_held(
            id INTEGER PRIMARY KEY AUTOINCREMENT, output TEXT NOT NULL, route TEXT NOT NULL, key TEXT NOT NULL,
            item BLOB NOT NULL, held_at REAL NOT NULL, UNIQUE(output, key));
        """

    /// The stored day (`YYYY-MM-DD`, local) and count of `output`; `nil` when none is stored.
    func outputBudget(output: String) throws(SQLiteError) -> (day: String, used: Int)? {
        try withBudgetTables { db throws(SQLiteError) -> (day: String, used: Int)? in
            let q = try db.prepare("SELECT day, used FROM output_budget WHERE output = ?1").bound(output)
            guard try q.step() else { return nil }
            return (q.text(0) ?? "", Int(q.int64(1)))
        }
    }

    /// Stores the day's count of `output`.
    func saveOutputBudget(output: String, day: String, used: Int) throws(SQLiteError) {
        try withBudgetTables { db throws(SQLiteError) in
            try db.prepare("INSERT INTO output_budget(output, day, used) VALUES (?1, ?2, ?3) ON CONFLICT(output) DO UPDATE SET day = ?2, used = ?3")
                .bound(output, day, Int64(used)).run()
        }
    }

    /// Holds an item for `output`'s next summary of `route`; `nil` when it is held already.
    func holdForBudget(output: String, route: String, key: String, item: [UInt8], heldAt: Double) throws(SQLiteError) -> Int64? {
        try withBudgetTables { db throws(SQLiteError) -> Int64? in
            try db.prepare("INSERT OR IGNORE INTO output_budget_held(output, route, key, item, held_at) VALUES (?1, ?2, ?3, ?4, ?5)")
                .bound(output, route, key, item, heldAt).run()
            return db.changes > 0 ? db.lastInsertRowID : nil
        }
    }

    /// The items `output` holds, oldest first.
    func budgetHeld(output: String) throws(SQLiteError) -> [BudgetHeldRow] {
        try withBudgetTables { db throws(SQLiteError) -> [BudgetHeldRow] in
            try db.prepare("SELECT id, route, key, item, held_at FROM output_budget_held WHERE output = ?1 ORDER BY id")
                .bound(output).rows { q in
                    BudgetHeldRow(id: q.int64(0), route: q.text(1) ?? "", key: q.text(2) ?? "", item: q.blob(3), heldAt: q.double(4))
                }
        }
    }

    /// One transaction: the held rows `ids` are removed and, unless `summary` is `nil` (the
    /// budget is used up: they are dropped), the summary's deliveries stored for `output`
    /// with the day's new count. Returns, per delivery, whether it is new.
    func releaseBudgetHeld(output: String, ids: [Int64],
                           summary: (rows: [(key: String, target: String)], item: [UInt8], created: Double, day: String, used: Int)?)
    throws(SQLiteError) -> [Bool] {
        try withBudgetTables { db throws(SQLiteError) -> [Bool] in
            let remove = try db.prepare("DELETE FROM output_budget_held WHERE id = ?1")
            let insert = try db.prepare("INSERT OR IGNORE INTO output_deliveries(output, key, target, item, created, files) VALUES (?1, ?2, ?3, ?4, ?5, '')")
            let save = try db.prepare("INSERT INTO output_budget(output, day, used) VALUES (?1, ?2, ?3) ON CONFLICT(output) DO UPDATE SET day = ?2, used = ?3")
            return try db.transaction { () throws(SQLiteError) -> [Bool] in
                for id in ids { try remove.bound(id).run() }
                guard let summary else { return [] }
                var added: [Bool] = []
                for row in summary.rows {
                    try insert.bound(output, row.key, row.target, summary.item, summary.created).run()
                    added.append(db.changes > 0)
                }
                try save.bound(output, summary.day, Int64(summary.used)).run()
                return added
            }
        }
    }

    /// `body` once the budget tables and `output_deliveries` (a summary is stored there) exist.
    private func withBudgetTables<T: Sendable>(_ body: (SQLiteDatabase) throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        try withOutputTable { _ throws(SQLiteError) -> Void in }
        return try withDatabase(schema: Self.outputBudgetSchema) { db throws(SQLiteError) -> T in try body(db) }
    }
}
