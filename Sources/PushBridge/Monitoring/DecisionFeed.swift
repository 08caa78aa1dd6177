import Foundation
import Synchronization

/// Where each message's final decision goes for people watching: the dashboard's
/// Server-Sent-Events readers (`/api/events`) and `monitoring.trace_topic` (docs/formats.md,
/// "Decision events: SSE and the trace topic").
///
/// The bridge offers every decision (`offer`); with no reader and no trace topic the offer
/// is one relaxed atomic load and returns, so a bridge nobody watches pays nothing else.
/// Each reader has its own bounded `EventRing`: a slow reader misses events (counted in
/// `dropped`, `pushbridge_dashboard_dropped_total`) and never slows the offering thread,
/// which only appends the record under the reader's own lock (no encoding, no system call:
/// the reader's thread encodes what it sends).
final class DecisionFeed: Sendable {
    /// The most readers at once; a further `/api/events` request gets 503.
    static let maxReaders = 32
    /// Frames a reader's ring holds.
    let ringCapacity: Int
    /// Bytes a reader's ring holds.
    let ringBytes: Int
    /// Add notification text to the records (`log_level: debug` only).
    let includeText: Bool
    /// `monitoring.trace_topic`.
    let traceTopic: String?
    private let traceProperties: [(name: String, value: String)]
    private let readerCount = Atomic<Int>(0)
    private let readers = Mutex<[FeedReader]>([])
    private let droppedTotal = Atomic<Int>(0)
    /// Signalled when a parked reader gets its first frame (the event streams' pump waits on it).
    /// (A semaphore: libmicrohttpd's content-reader callback parks a connection, and the pump
    /// thread that resumes it waits here.)
    let readerWake = DispatchSemaphore(value: 0)

    /// A feed; `traceProperties` go on every trace publish (the bridge's hop property).
    init(includeText: Bool, traceTopic: String?, traceProperties: [(name: String, value: String)] = [],
                ringCapacity: Int = 4096, ringBytes: Int = 4 << 20) {
        self.includeText = includeText
        self.traceTopic = traceTopic
        self.traceProperties = traceProperties
        self.ringCapacity = ringCapacity
        self.ringBytes = ringBytes
    }

    /// Readers attached now.
    var readersAttached: Int { readerCount.load(ordering: .relaxed) }
    /// Events readers missed since start (`pushbridge_dashboard_dropped_total`).
    var dropped: Int { droppedTotal.load(ordering: .relaxed) }

    /// The hook in the bridge's emit step: the final `decision` of message `id` from `topic`.
    @inline(__always)
    func offer(topic: String, id: String, decision: Decision, client: MQTTClient?) {
        if traceTopic == nil && readerCount.load(ordering: .relaxed) == 0 { return }
        deliver(DecisionRecord(decision, id: id, topic: topic, at: Date().timeIntervalSince1970,
                               includeText: includeText), client: client)
    }

    /// Sends `record` to the trace topic and every reader (who encode it when they read it).
    func deliver(_ record: DecisionRecord, client: MQTTClient?) {
        if let traceTopic, let client {
            _ = try? client.publish(topic: traceTopic, payload: record.json(), qos: 0, retain: false,
                                    userProperties: traceProperties)
        }
        guard readerCount.load(ordering: .relaxed) > 0 else { return }
        let all = readers.withLock { $0 }
        var missed = 0
        for reader in all { missed += reader.push(record) }
        if missed > 0 { droppedTotal.add(missed, ordering: .relaxed) }
    }

    /// Appends `frame` to every reader's ring.
    func broadcast(_ frame: [UInt8]) {
        let all = readers.withLock { $0 }
        var missed = 0
        for reader in all { missed += reader.push(frame) }
        if missed > 0 { droppedTotal.add(missed, ordering: .relaxed) }
    }

    /// A new reader, or `nil` when `maxReaders` are attached.
    func attach() -> FeedReader? {
        readers.withLock { list in
            guard list.count < Self.maxReaders else { return nil }
            let reader = FeedReader(capacity: ringCapacity, maxBytes: ringBytes, wake: readerWake)
            list.append(reader)
            readerCount.store(list.count, ordering: .relaxed)
            return reader
        }
    }

    /// Removes `reader` (its connection ended).
    func detach(_ reader: FeedReader) {
        readers.withLock { list in
            list.removeAll { $0 === reader }
            readerCount.store(list.count, ordering: .relaxed)
        }
    }

    /// One SSE frame: `event: NAME`, `data: …` (one line: JSON has no raw newline), blank line.
    static func frame(event: String, data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(data.count + event.utf8.count + 16)
        out += Array("event: \(event)\ndata: ".utf8)
        out += data
        out += [10, 10]
        return out
    }
}

/// One `/api/events` reader: its ring and whether its connection is parked (suspended).
final class FeedReader: Sendable {
    struct State {
        var ring: EventRing
        /// The connection is suspended, waiting for frames.
        var parked = false
        /// End the stream at the next read (the server stops).
        var closing = false
        /// Frames this reader missed.
        var missed = 0
    }
    let state: Mutex<State>
    private let wake: DispatchSemaphore?

    /// A reader; `wake` is signalled when a frame lands while it is parked with nothing to send.
    init(capacity: Int, maxBytes: Int, wake: DispatchSemaphore? = nil) {
        state = Mutex(State(ring: EventRing(capacity: capacity, maxBytes: maxBytes)))
        self.wake = wake
    }

    /// Appends `record` (encoded when read); returns the frames forgotten to make room.
    func push(_ record: DecisionRecord) -> Int { push { $0.push(decision: record) } }

    /// Appends `frame`; returns the frames forgotten to make room.
    func push(_ frame: [UInt8]) -> Int { push { $0.push(frame) } }

    private func push(_ append: (inout EventRing) -> Int) -> Int {
        state.withLock { s in
            let wasEmpty = s.ring.isEmpty
            let forgotten = append(&s.ring)
            s.missed += forgotten
            if s.parked, wasEmpty, !s.ring.isEmpty { wake?.signal() }
            return forgotten
        }
    }

    /// Frames this reader missed so far.
    var missed: Int { state.withLock { $0.missed } }

    /// What the stream's next read does.
    enum Read: Equatable {
        /// `n` bytes were copied.
        case bytes(Int)
        /// Nothing to send: `park` was called (under the reader's lock).
        case parked
        /// The stream ends.
        case end
    }

    /// Copies pending bytes into `buffer`; with none, calls `park` and marks the reader parked.
    func read(into buffer: UnsafeMutableRawBufferPointer, park: () -> Void) -> Read {
        state.withLock { s in
            if s.closing { return .end }
            let n = s.ring.read(into: buffer)
            if n > 0 { return .bytes(n) }
            s.parked = true
            park()
            return .parked
        }
    }

    /// Calls `resume` (under the reader's lock) when the reader is parked and has something
    /// to do: frames to send, or the end. Returns whether it resumed.
    @discardableResult
    func wakeIfNeeded(resume: () -> Void) -> Bool {
        state.withLock { s in
            guard s.parked, !s.ring.isEmpty || s.closing else { return false }
            s.parked = false
            resume()
            return true
        }
    }

    /// Ends the stream at the next read.
    func close() { state.withLock { $0.closing = true } }
}

extension DecisionFeed {
    /// The feed's metric families: `pushbridge_dashboard_readers` (gauge) and
    /// `pushbridge_dashboard_dropped_total` (events `/api/events` readers missed).
    func prometheusText() -> String {
        var out = PrometheusWriter()
        out.single("pushbridge_dashboard_readers", .gauge, "Readers attached to /api/events.", readersAttached)
        out.single("pushbridge_dashboard_dropped_total", .counter,
                   "Events /api/events readers missed because they read too slowly.", dropped)
        return out.text
    }
}
