import CSQLite
import Foundation

/// A SQLite result code that is not success, with SQLite's own message.
package struct SQLiteError: Error, CustomStringConvertible, Sendable {
    /// The primary or extended result code.
    package var code: Int32
    /// `sqlite3_errmsg` (or `sqlite3_errstr`) at the time of the failure.
    package var message: String
    /// What we were doing.
    package var context: String

    package var description: String { "\(context): \(message) (SQLite code \(code))" }
}

/// One SQLite connection, owned by exactly one object and used under its lock.
///
/// The only code that imports CSQLite. The handle is opened with `SQLITE_OPEN_NOMUTEX`:
/// callers serialize access themselves (the journal keeps it behind a `Mutex`).
final class SQLiteDatabase {
    let raw: OpaquePointer
    /// The schemas `ensure` has run on this connection; used under the owner's lock.
    private var ensured: Set<String> = []

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int { Int(sqlite3_changes(raw)) }

    /// Opens (creating) the database file at `path`.
    init(path: String) throws(SQLiteError) {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &handle, flags, nil)
        guard rc == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            // sqlite3_open_v2 allocates a handle even on failure; it must be closed.
            if let handle { sqlite3_close_v2(handle) }
            throw SQLiteError(code: rc, message: message, context: "open '\(path)'")
        }
        raw = handle
        sqlite3_extended_result_codes(raw, 1)
    }

    deinit {
        // close_v2 defers the close until every statement is finalized.
        sqlite3_close_v2(raw)
    }

    /// Runs one or more statements that return no rows we need.
    func execute(_ sql: String) throws(SQLiteError) {
        var error: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(raw, sql, nil, nil, &error)
        if rc != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_free(error)
            throw SQLiteError(code: rc, message: message, context: sql)
        }
    }

    /// Runs `schema` (`CREATE … IF NOT EXISTS`) once per connection.
    func ensure(_ schema: String) throws(SQLiteError) {
        guard !ensured.contains(schema) else { return }
        try execute(schema)
        ensured.insert(schema)
    }

    /// Adds each of `columns` (name, definition) that `table` lacks (`ALTER TABLE … ADD
    /// COLUMN`): a table an older version made gets the columns added since. Once per connection.
    func ensureColumns(_ columns: [(name: String, definition: String)], of table: String) throws(SQLiteError) {
        let marker = "columns of \(table)"
        guard !ensured.contains(marker) else { return }
        let present = Set(try prepare("SELECT name FROM pragma_table_info(?1)").bound(table).rows { $0.text(0) ?? "" })
        for (name, definition) in columns where !present.contains(name) {
            try execute("ALTER TABLE \(table) ADD COLUMN \(name) \(definition)")
        }
        ensured.insert(marker)
    }

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    func transaction<T>(_ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        try execute("BEGIN")
        do throws(SQLiteError) {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Runs a statement returning one text or integer cell (a PRAGMA), as text.
    func scalar(_ sql: String) throws(SQLiteError) -> String? {
        let s = try prepare(sql)
        guard try s.step() else { return nil }
        return s.text(0)
    }

    /// Compiles `sql` once, for repeated use.
    func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(raw, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK, let statement else { throw failure(rc, sql) }
        return SQLiteStatement(statement, database: self, sql: sql)
    }

    /// The rowid of the last successful INSERT.
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(raw) }

    /// The error for `rc`, with the connection's message.
    func failure(_ rc: Int32, _ context: String) -> SQLiteError {
        SQLiteError(code: rc, message: String(cString: sqlite3_errmsg(raw)), context: context)
    }
}

/// A prepared statement; reset and rebound for each use.
final class SQLiteStatement {
    private let raw: OpaquePointer
    // Keeps the connection alive as long as the statement.
    private let database: SQLiteDatabase
    private let sql: String

    fileprivate init(_ raw: OpaquePointer, database: SQLiteDatabase, sql: String) {
        self.raw = raw
        self.database = database
        self.sql = sql
    }

    deinit { sqlite3_finalize(raw) }

    /// Clears the previous bindings and run; call before binding anew.
    func reset() {
        sqlite3_reset(raw)
        sqlite3_clear_bindings(raw)
    }

    func bind(_ index: Int32, _ value: Int64) {
        sqlite3_bind_int64(raw, index, value)
    }

    func bind(_ index: Int32, _ value: Double) {
        sqlite3_bind_double(raw, index, value)
    }

    func bind(_ index: Int32, _ value: String) {
        sqlite3_bind_text(raw, index, value, -1, pushbridge_sqlite_transient())
    }

    func bind(_ index: Int32, _ bytes: [UInt8]) {
        // A zero-length blob with a nil pointer would bind NULL: bind an empty blob instead.
        _ = bytes.withUnsafeBytes { b in
            b.isEmpty ? sqlite3_bind_zeroblob(raw, index, 0)
                : sqlite3_bind_blob(raw, index, b.baseAddress, Int32(b.count), pushbridge_sqlite_transient())
        }
    }

    /// Resets the statement and binds `values` to ?1, ?2, … in order (a `nil` stays NULL).
    @discardableResult
    func bound<each V: SQLiteValue>(_ values: repeat each V) -> SQLiteStatement {
        reset()
        var index: Int32 = 0
        for value in repeat each values {
            index += 1
            value.bind(to: self, at: index)
        }
        return self
    }

    /// Every row still to come, each read by `row`.
    func rows<T>(_ row: (SQLiteStatement) -> T) throws(SQLiteError) -> [T] {
        var out: [T] = []
        while try step() { out.append(row(self)) }
        return out
    }

    /// Steps once: `true` when a row is available, `false` when done.
    func step() throws(SQLiteError) -> Bool {
        let rc = sqlite3_step(raw)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        let error = database.failure(rc, sql)
        sqlite3_reset(raw)
        throw error
    }

    /// Runs a statement that returns no rows, then resets it.
    func run() throws(SQLiteError) {
        defer { sqlite3_reset(raw) }
        _ = try step()
    }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(raw, column) }

    func double(_ column: Int32) -> Double { sqlite3_column_double(raw, column) }

    func text(_ column: Int32) -> String? {
        guard let p = sqlite3_column_text(raw, column) else { return nil }
        return String(cString: p)
    }

    func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(raw, column))
        guard count > 0, let p = sqlite3_column_blob(raw, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: p, count: count))
    }
}

/// A value a statement parameter takes (`SQLiteStatement.bound`).
protocol SQLiteValue {
    func bind(to statement: SQLiteStatement, at index: Int32)
}

extension Int64: SQLiteValue {
    func bind(to statement: SQLiteStatement, at index: Int32) { statement.bind(index, self) }
}

extension Double: SQLiteValue {
    func bind(to statement: SQLiteStatement, at index: Int32) { statement.bind(index, self) }
}

extension String: SQLiteValue {
    func bind(to statement: SQLiteStatement, at index: Int32) { statement.bind(index, self) }
}

extension Array: SQLiteValue where Element == UInt8 {
    func bind(to statement: SQLiteStatement, at index: Int32) { statement.bind(index, self) }
}

extension Optional: SQLiteValue where Wrapped: SQLiteValue {
    func bind(to statement: SQLiteStatement, at index: Int32) { self?.bind(to: statement, at: index) }
}
