import CMicroHTTPD
import Foundation
import Synchronization

/// `/api/events` on libmicrohttpd: one callback response per reader, its connection
/// suspended while the reader's ring is empty (libmicrohttpd's thread must never block).
///
/// The content reader copies what the reader's `EventRing` holds; with nothing to send it
/// suspends its connection and returns 0 (the documented way in internal-polling mode). A
/// pump thread waits for a parked reader's first frame (`DecisionFeed.readerWake`, signalled
/// by the push) or for the next second: it resumes parked readers that have frames, at most
/// once per `tick` while frames keep coming (they are sent in rounds), and once a second
/// samples the totals for the rate chart's history (`RateHistory`) and broadcasts the
/// `stats` snapshot. The bridge's emit step makes at most one semaphore signal per reader
/// round, never a libmicrohttpd call. A reader whose socket takes nothing (a stuck client) holds its
/// frames in the ring, misses the newer ones, and is closed by libmicrohttpd's connection
/// timeout (10 s without progress); the browser's `EventSource` reconnects on its own.
final class EventStreams: Sendable {
    let feed: DecisionFeed
    let snapshot: @Sendable () -> [UInt8]
    let totals: (@Sendable () -> Counters)?
    private let history = Mutex(RateHistory())

    /// `/api/history`: the last minutes of totals, `[[unix_ms, received, delivered, suppressed, rejected], …]`.
    func historyJSON() -> [UInt8] { history.withLock { $0.json() } }
    private let tick: Duration
    private let stopping = Atomic<Bool>(false)
    /// Signalled each time a reader's response is freed (its connection ended) during `stop()`.
    /// (A semaphore: signalled from libmicrohttpd's response-free callback.)
    private let readerEnded = DispatchSemaphore(value: 0)
    /// The pump's thread; its `stop()` also ends the pump's wait between rounds.
    private let pumpWorker = Worker(name: "pushbridge-events")
    private let pumpStarted = Atomic<Bool>(false)

    init(feed: DecisionFeed, snapshot: @escaping @Sendable () -> [UInt8], totals: (@Sendable () -> Counters)? = nil,
         tick: Duration = .milliseconds(100)) {
        self.feed = feed
        self.snapshot = snapshot
        self.totals = totals
        self.tick = tick
    }

    /// What the content reader needs: the reader, its connection, the streams.
    ///
    /// `@unchecked Sendable`: `connection` is only handed to `MHD_resume_connection` and
    /// `MHD_suspend_connection`, which libmicrohttpd allows from any thread (suspend from its
    /// own callbacks only, which is where it is called); everything else is immutable.
    final class Context: @unchecked Sendable {
        let reader: FeedReader
        let connection: OpaquePointer
        let streams: EventStreams
        init(reader: FeedReader, connection: OpaquePointer, streams: EventStreams) {
            self.reader = reader
            self.connection = connection
            self.streams = streams
        }
    }

    /// Starts the pump thread.
    func start() {
        guard !pumpStarted.exchange(true, ordering: .relaxed) else { return }
        pumpWorker.submit { [self] in pump() }
    }

    private func pump() {
        var nextSample = ContinuousClock.now + .seconds(1)
        while !stopping.load(ordering: .relaxed) {
            let woken = feed.readerWake.wait(timeout: .now() + (nextSample - .now).dispatchInterval) == .success
            if stopping.load(ordering: .relaxed) { break }
            if ContinuousClock.now >= nextSample {
                nextSample = .now + .seconds(1)
                if let totals {
                    let c = totals()
                    history.withLock { $0.append(at: Date().timeIntervalSince1970, c) }
                }
                if feed.readersAttached > 0 { feed.broadcast(DecisionFeed.frame(event: "stats", data: snapshot())) }
            }
            if feed.readersAttached > 0 { wakeReaders() }
            // Rounds at most `tick` apart: one resume per reader per round, not one per frame.
            if woken { _ = pumpWorker.stopRequested(within: tick) }
        }
    }

    private func wakeReaders() {
        guard case .success(let table) = MicroHTTPD.functions else { return }
        for context in contexts.withLock({ Array($0.values) }) {
            context.reader.wakeIfNeeded { table.functions.resume_connection(context.connection) }
        }
    }

    /// Live contexts by reader identity (to resume them; the reader itself does not know its connection).
    private let contexts = Mutex<[ObjectIdentifier: Context]>([:])

    /// Queues the event-stream response for a new reader on `connection`.
    func respond(on connection: OpaquePointer) -> MHD_Result {
        guard case .success(let table) = MicroHTTPD.functions else { return .NO }
        let mhd = table.functions
        if stopping.load(ordering: .relaxed) {
            return HTTPResponse(status: 503, body: "stopping\n").queue(on: connection)
        }
        guard let reader = feed.attach() else {
            return HTTPResponse(status: 503, body: "too many event-stream readers (at most \(DecisionFeed.maxReaders))\n",
                                headers: [("Retry-After", "10")]).queue(on: connection)
        }
        // First frames: the reconnection delay for EventSource, then the current snapshot.
        _ = reader.push(Array("retry: 2000\n\n".utf8))
        _ = reader.push(DecisionFeed.frame(event: "stats", data: snapshot()))
        let context = Context(reader: reader, connection: connection, streams: self)
        contexts.withLock { $0[ObjectIdentifier(reader)] = context }
        // A stop that took its list of contexts before this one ends it at the first read.
        if stopping.load(ordering: .relaxed) { reader.close() }
        let cls = Unmanaged.passRetained(context).toOpaque()
        let response = mhd.create_response_from_callback(pb_mhd_size_unknown, 64 * 1024, { cls, _, buf, max in
            guard let cls, let buf else { return pb_mhd_reader_end_with_error }
            let context = Unmanaged<Context>.fromOpaque(cls).takeUnretainedValue()
            let result = context.reader.read(into: UnsafeMutableRawBufferPointer(start: buf, count: max)) {
                if case .success(let table) = MicroHTTPD.functions { table.functions.suspend_connection(context.connection) }
            }
            switch result {
            case .bytes(let n): return n
            case .parked: return 0
            case .end: return pb_mhd_reader_end_with_error
            }
        }, cls, { cls in
            guard let cls else { return }
            let context = Unmanaged<Context>.fromOpaque(cls).takeRetainedValue()
            context.streams.ended(context)
        })
        guard let response else {
            Unmanaged<Context>.fromOpaque(cls).release()
            ended(context)
            return .NO
        }
        defer { mhd.destroy_response(response) }
        _ = mhd.add_response_header(response, "Content-Type", "text/event-stream; charset=utf-8")
        _ = mhd.add_response_header(response, "Cache-Control", "no-cache")
        _ = mhd.add_response_header(response, "X-Accel-Buffering", "no")
        return mhd.queue_response(connection, 200, response)
    }

    /// The response of `context` was freed: its connection ended.
    private func ended(_ context: Context) {
        contexts.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(context.reader)) }
        feed.detach(context.reader)
        if stopping.load(ordering: .relaxed) { readerEnded.signal() }
    }

    /// Ends every stream (each connection is resumed and closed by its reader) and the pump;
    /// returns once no connection is suspended (libmicrohttpd must not stop with one), bounded.
    func stop() {
        guard !stopping.exchange(true, ordering: .relaxed) else { return }
        if pumpStarted.load(ordering: .relaxed) {
            feed.readerWake.signal()
            pumpWorker.stop()
            pumpWorker.join()
        }
        // Each closed reader ends at its next read (a parked one is resumed for it); wait for
        // the ends, each signalled by `ended`.
        let deadline = DispatchTime.now() + .seconds(3)
        while true {
            let all = contexts.withLock { Array($0.values) }
            if all.isEmpty { break }
            for context in all {
                context.reader.close()
                if case .success(let table) = MicroHTTPD.functions {
                    context.reader.wakeIfNeeded { table.functions.resume_connection(context.connection) }
                }
            }
            if readerEnded.wait(timeout: deadline) == .timedOut { break }
        }
    }
}
