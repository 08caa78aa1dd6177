import Foundation
import Synchronization

/// Runs script calls on Redis from one thread, in the order they were handed in, many per
/// round trip: the calls waiting when the thread gets to them go out as one pipeline.
///
/// While Redis cannot be reached the calls wait, in order, and are sent again until it answers
/// (the scripts are written so that sending one twice changes nothing: each carries its
/// decision key). `health` records every call, for the stats, `/metrics` and `/readyz`, and
/// says when Redis stops answering and when it answers again. `stop()` ends the thread; calls not
/// answered by then are never completed (their messages stay in the journal and are decided
/// again at the next start).
final class RedisBatches: Sendable {
    /// One script call and what to do with its reply.
    struct Call: Sendable {
        var script: RedisScript
        var keys: [String]
        var arguments: [[UInt8]]
        /// The operation's name in the metrics (`filter_decide`).
        var op: String
        var completion: @Sendable (RedisReply) -> Void
    }

    /// Most calls in one pipeline.
    static let batch = 512
    /// The wait before the first retry; it doubles up to `maxBackoff`.
    static let minBackoff: Duration = .milliseconds(50)
    static let maxBackoff: Duration = .seconds(2)

    private let connection: RedisConnection
    private let health: StateHealth
    private let queue = Mutex<[Call]>([])
    private let worker = Worker(name: "redis-state")
    private let wake = WaitGate()
    private let started = Atomic<Bool>(false)

    init(connection: RedisConnection, health: StateHealth) {
        self.connection = connection
        self.health = health
    }

    /// Queues `call` after the ones already queued.
    func submit(_ call: Call) {
        queue.withLock { $0.append(call) }
        start()
        wake.notify()
    }

    /// Starts the thread (the first `submit` does too): it connects at once, so `/readyz`
    /// knows early whether Redis answers.
    func start() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        worker.submit { [self] in run() }
    }

    /// Ends the thread after the round trip in progress.
    func stop() {
        worker.stop()
        wake.notify()
        if started.load(ordering: .acquiring) { worker.join() }
    }

    /// Calls waiting to be sent.
    var waiting: Int { queue.withLock { $0.count } }

    private func run() {
        ping()
        var backoff = Self.minBackoff
        while !worker.isStopping {
            _ = wake.wait(until: .now + .seconds(1)) { worker.isStopping || queue.withLock { !$0.isEmpty } }
            let calls = queue.withLock { q -> [Call] in Array(q.prefix(Self.batch)) }
            if calls.isEmpty {
                if !health.isConnected { ping() }
                continue
            }
            if send(calls) {
                queue.withLock { $0.removeFirst(calls.count) }
                backoff = Self.minBackoff
            } else {
                if worker.stopRequested(within: backoff) { return }
                backoff = min(backoff * 2, Self.maxBackoff)
            }
        }
    }

    /// Sends `calls` as pipelines (one per script); `true` when every call was answered.
    private func send(_ calls: [Call]) -> Bool {
        let clock = ContinuousClock()
        let begin = clock.now
        var replies: [RedisReply] = []
        do throws(RedisError) {
            // Consecutive calls of one script go out as one pipeline.
            var i = 0
            while i < calls.count {
                let script = calls[i].script
                var j = i
                while j < calls.count, calls[j].script === script { j += 1 }
                replies += try script.runMany(on: connection, calls[i..<j].map { ($0.keys, $0.arguments) })
                i = j
            }
        } catch {
            health.failed(calls[0].op, why: error.description)
            return false
        }
        if let failed = replies.first(where: { if case .error = $0 { true } else { false } }), case .error(let why) = failed {
            // The server refused (out of memory, a read-only replica): nothing of it is answered; sent again later.
            health.failed(calls[0].op, why: "refused: \(why)")
            return false
        }
        // The health is told once per operation of the round trip, not once per call.
        let seconds = (clock.now - begin).seconds
        var counts: [String: Int] = [:]
        for call in calls { counts[call.op, default: 0] += 1 }
        for (op, n) in counts { health.succeeded(op, seconds: seconds, count: n) }
        for (call, reply) in zip(calls, replies) { call.completion(reply) }
        return true
    }

    /// `PING`: whether Redis answers (recorded in `health`).
    private func ping() {
        _ = health.measured("ping") { () throws(RedisError) in try connection.command(["PING"]).accepted() }
    }
}
