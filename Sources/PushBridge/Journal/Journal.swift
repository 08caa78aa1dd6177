import Foundation
import Synchronization

/// The at-least-once journal: every QoS 1/2 message is written here (and committed)
/// inside `on_message`, before the broker can see its PUBACK, and stays until its
/// outcome no longer needs it (the display publish acknowledged, or an outcome that
/// publishes nothing). Messages still open at start are replayed with their ids.
///
/// Storage: SQLite in WAL mode, one file `journal.sqlite` in the `journal.path` directory.
/// A record is one INSERT through a prepared statement. By default it commits at once (one
/// WAL append, no fsync unless `fsync: always`); after `groupCommits()` the records of one
/// read batch share a transaction that `commitBatch()` ends before the batch's PUBACKs are
/// written (`MQTTClientHandlers.onReadsDone`): the same guarantee, one commit per batch.
/// Anything else that uses the connection (done marks, compaction) commits an open batch
/// first: committing early is always safe. Done marks are batched in memory and written in one
/// transaction by `flush()`; a crash before the flush only replays (duplicates) a message,
/// never loses one. `compact()` deletes done rows and truncates the WAL.
///
/// Thread safety: the connection and its statements sit behind one `Mutex`; `markDone`
/// and the counts take only short locks of their own.
package final class Journal: Sendable {
    /// The database file's name inside `journal.path`.
    static let fileName = "journal.sqlite"
    /// Rows kept after they are done, newest first, to recognize the broker's redelivery of
    /// messages whose PUBACK a crash prevented (must exceed the broker's in-flight window).
    static let redeliveryTail: Int64 = 4096

    /// The database file.
    let file: String
    let fsync: FsyncPolicy
    /// Open messages allowed before intake stops (`journal.max_messages`).
    let maxMessages: Int

    /// The connection and its statements (also used by `JournalFilterMemory.swift`).
    let store: Mutex<Store>
    private let open: Atomic<Int>
    private let doneMarks = Mutex<[Int64]>([])
    /// The rows a broker redelivery may repeat (JournalRedelivery.swift).
    let window: Mutex<RedeliveryWindow>
    let windowOpen: Atomic<Bool>

    private let grouping = Atomic<Bool>(false)
    private let committed: CommittedMark

    /// The highest sequence number whose record is committed (shared with `Store`).
    final class CommittedMark: Sendable {
        let seq: Atomic<Int64>
        init(_ seq: Int64) { self.seq = Atomic(seq) }
    }

    struct Store: ~Copyable {
        let db: SQLiteDatabase
        let insert: SQLiteStatement
        let markDone: SQLiteStatement
        let compact: SQLiteStatement
        let committed: CommittedMark
        /// A batch transaction is open (records since the last commit).
        var batchOpen = false
        /// The last sequence number recorded.
        var lastRecorded: Int64 = 0

        /// Commits the open batch, if any. On failure the batch is rolled back: its
        /// messages are then processed without the journal, as a failed record would be
        /// (either way nothing of it is waiting for a commit any more).
        mutating func commitBatch() throws(SQLiteError) {
            guard batchOpen else { return }
            batchOpen = false
            defer { committed.seq.store(lastRecorded, ordering: .releasing) }
            do throws(SQLiteError) {
                try db.execute("COMMIT")
            } catch {
                try? db.execute("ROLLBACK")
                throw error
            }
        }
    }

    /// SQLite's page cache, KiB (its default is 2000). The open rows are bounded by the intake
    /// places and the kept done rows by the redelivery tail: the pages written now are a few
    /// at the end of the table, and the OS caches the file anyway.
    static let cacheKiB = 512

    /// Opens (creating) the journal described by `config`: the directory, the database, WAL mode.
    init(config: JournalConfig) throws(SQLiteError) {
        do {
            try FileManager.default.createDirectory(atPath: config.path, withIntermediateDirectories: true)
        } catch {
            throw SQLiteError(code: -1, message: "\(error.localizedDescription)", context: "create directory '\(config.path)'")
        }
        file = config.path + "/" + Self.fileName
        fsync = config.fsync
        maxMessages = config.maxMessages
        let db = try SQLiteDatabase(path: file)
        let mode = try db.scalar("PRAGMA journal_mode=WAL")
        guard mode?.lowercased() == "wal" else {
            throw SQLiteError(code: -1, message: "journal_mode is \(mode ?? "unknown"), WAL is needed", context: file)
        }
        let synchronous = switch config.fsync {
        case .always: "FULL"
        case .interval: "NORMAL"
        case .never: "OFF"
        }
        try db.execute("""
            PRAGMA synchronous=\(synchronous);
            PRAGMA cache_size=-\(Self.cacheKiB);
            CREATE TABLE IF NOT EXISTS messages(
                seq INTEGER PRIMARY KEY, id TEXT NOT NULL, topic TEXT NOT NULL, payload BLOB NOT NULL,
                qos INTEGER NOT NULL, retain INTEGER NOT NULL, properties BLOB NOT NULL,
                received_at REAL NOT NULL, mid INTEGER NOT NULL, done INTEGER NOT NULL DEFAULT 0);
            """)
        let lastSeq = Int64(try db.scalar("SELECT coalesce(max(seq), 0) FROM messages") ?? "0") ?? 0
        let committed = CommittedMark(lastSeq)
        self.committed = committed
        let store = Store(
            db: db,
            insert: try db.prepare("""
                INSERT INTO messages(id, topic, payload, qos, retain, properties, received_at, mid)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                """),
            markDone: try db.prepare("UPDATE messages SET done = 1 WHERE seq = ?1"),
            compact: try db.prepare("DELETE FROM messages WHERE done = 1 AND seq <= ?1"),
            committed: committed)
        let openCount = Int(try db.scalar("SELECT count(*) FROM messages WHERE done = 0") ?? "0") ?? 0
        let tail = try Self.entries(db, where: "seq > \(lastSeq - Self.redeliveryTail)")
        self.store = Mutex(store)
        self.open = Atomic(openCount)
        self.window = Mutex(RedeliveryWindow(tail))
        self.windowOpen = Atomic(!tail.isEmpty)
    }

    /// Messages recorded and not yet done.
    var openCount: Int { open.load(ordering: .acquiring) }

    /// `true` when `max_messages` messages are open: intake should wait.
    var isFull: Bool { openCount >= maxMessages }

    /// Makes `message` durable (committed) and returns its sequence number.
    ///
    /// Called on the network thread inside `on_message`; when it returns, a crash of the
    /// process can no longer lose the message (power loss: see `fsync`).
    package func record(_ message: InboundMessage, id: String) throws(SQLiteError) -> Int64 {
        let grouped = grouping.load(ordering: .relaxed)
        let seq = try store.withLock { s throws(SQLiteError) -> Int64 in
            if grouped, !s.batchOpen {
                try s.db.execute("BEGIN")
                s.batchOpen = true
            }
            let q = s.insert
            q.reset()
            q.bind(1, id)
            q.bind(2, message.topic)
            q.bind(3, message.payload)
            q.bind(4, Int64(message.qos))
            q.bind(5, Int64(message.retain ? 1 : 0))
            q.bind(6, UserPropertyCoding.encode(message.userProperties))
            q.bind(7, message.receivedAt)
            q.bind(8, Int64(message.mid))
            try q.run()
            let seq = s.db.lastInsertRowID
            s.lastRecorded = seq
            if !s.batchOpen { s.committed.seq.store(seq, ordering: .releasing) }
            return seq
        }
        open.add(1, ordering: .releasing)
        return seq
    }

    /// `true` once the record `seq` is committed (or its batch failed to commit): from then
    /// its display may be published, since a crash can no longer make the broker's
    /// redelivery of it look like a new message.
    func isCommitted(_ seq: Int64) -> Bool {
        seq <= committed.seq.load(ordering: .acquiring)
    }

    /// `true` after `groupCommits()`.
    var groupsCommits: Bool { grouping.load(ordering: .relaxed) }

    /// From now on `record` leaves its transaction open until `commitBatch()` (called on
    /// the network thread before it writes PUBACKs; see `MQTTClientHandlers.onReadsDone`).
    func groupCommits() {
        grouping.store(true, ordering: .relaxed)
    }

    /// Commits the records since the last commit: from here a crash cannot lose them.
    func commitBatch() throws(SQLiteError) {
        try store.withLock { s throws(SQLiteError) in try s.commitBatch() }
    }

    /// Marks the message `seq` done: it will not be replayed once the mark is flushed.
    /// Call it once per recorded message.
    func markDone(_ seq: Int64) {
        open.subtract(1, ordering: .releasing)
        let count = doneMarks.withLock { marks in
            marks.append(seq)
            return marks.count
        }
        if count >= 4096 { try? flush() }
    }

    /// Writes the queued done marks in one transaction.
    func flush() throws(SQLiteError) {
        let marks = doneMarks.withLock { m in
            defer { m.removeAll(keepingCapacity: true) }
            return m
        }
        try store.withLock { s throws(SQLiteError) in
            try s.commitBatch()
            guard !marks.isEmpty else { return }
            try s.db.transaction { () throws(SQLiteError) in
                for seq in marks { try s.markDone.bound(seq).run() }
            }
        }
    }

    /// `body` on the connection, under the lock, after committing the open batch and making
    /// `schema`'s tables (once per connection).
    func withDatabase<T: Sendable>(schema: String? = nil,
                                   _ body: (SQLiteDatabase) throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        try store.withLock { s throws(SQLiteError) -> T in
            try s.commitBatch()
            if let schema { try s.db.ensure(schema) }
            return try body(s.db)
        }
    }

    /// Flushes, deletes done rows (keeping the newest `redeliveryTail`), and, when
    /// `checkpoint`, moves the WAL into the database and truncates it
    /// (`PRAGMA wal_checkpoint(TRUNCATE)`; with `fsync: interval` this is the periodic fsync).
    func compact(checkpoint: Bool) throws(SQLiteError) {
        try flush()
        try store.withLock { s throws(SQLiteError) in
            try s.commitBatch()
            let last = Int64(try s.db.scalar("SELECT coalesce(max(seq), 0) FROM messages") ?? "0") ?? 0
            try s.compact.bound(last - Self.redeliveryTail).run()
            if checkpoint { try s.db.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
        }
    }

    /// The open messages, oldest first: what a start replays.
    func openEntries() throws(SQLiteError) -> [JournalEntry] {
        try store.withLock { s throws(SQLiteError) in try Self.entries(s.db, where: "done = 0") }
    }

    static func entries(_ db: SQLiteDatabase, where condition: String) throws(SQLiteError) -> [JournalEntry] {
        let q = try db.prepare("""
            SELECT seq, id, topic, payload, qos, retain, properties, received_at, mid
            FROM messages WHERE \(condition) ORDER BY seq
            """)
        return try q.rows { q in
            let message = InboundMessage(
                topic: q.text(2) ?? "", payload: q.blob(3), qos: Int(q.int64(4)), retain: q.int64(5) != 0,
                userProperties: UserPropertyCoding.decode(q.blob(6)) ?? [], receivedAt: q.double(7),
                mid: Int32(truncatingIfNeeded: q.int64(8)))
            return JournalEntry(seq: q.int64(0), id: q.text(1) ?? "", message: message)
        }
    }
}
