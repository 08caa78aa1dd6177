import Dispatch
import Synchronization

/// The `extension.concurrency` gate: at most `limit` requests in the asynchronous part of
/// the stage at once; the rest wait in arrival order (FIFO).
final class Admission: Sendable {
    /// A waiting request: `start` runs when a place frees, `abandon` if the stage shuts down first.
    struct Waiter: Sendable {
        let start: @Sendable () -> Void
        let abandon: @Sendable () -> Void
    }

    private struct State {
        var running = 0
        var waiting: [Waiter] = []
        var head = 0
        var closed = false
    }

    private let state = Mutex(State())
    private let limit: Int
    private let queue: DispatchQueue

    init(limit: Int, queue: DispatchQueue) {
        self.limit = max(1, limit)
        self.queue = queue
    }

    /// Runs `waiter.start` now when a place is free, otherwise queues it.
    func enter(_ waiter: Waiter) {
        enum Action { case start, wait, abandon }
        let limit = self.limit
        let action: Action = state.withLock { s in
            if s.closed { return .abandon }
            if s.running < limit {
                s.running += 1
                return .start
            }
            s.waiting.append(waiter)
            return .wait
        }
        switch action {
        case .start: waiter.start()
        case .abandon: waiter.abandon()
        case .wait: break
        }
    }

    /// Frees a place; the longest-waiting request (if any) takes it, on the stage's queue.
    func leave() {
        let next: Waiter? = state.withLock { s in
            guard s.head < s.waiting.count else {
                s.running -= 1
                return nil
            }
            let waiter = s.waiting[s.head]
            s.head += 1
            if s.head > 256, s.head * 2 > s.waiting.count {
                s.waiting.removeFirst(s.head)
                s.head = 0
            }
            return waiter
        }
        if let next { queue.async { next.start() } }
    }

    /// Refuses new requests and abandons the waiting ones.
    func close() {
        let abandoned: [Waiter] = state.withLock { s in
            s.closed = true
            let rest = Array(s.waiting[s.head...])
            s.waiting = []
            s.head = 0
            return rest
        }
        for waiter in abandoned { waiter.abandon() }
    }
}
