import Synchronization

/// A one-shot signal that tasks can await without polling: `fire()` wakes every waiter,
/// now and later; a waiting task that is cancelled returns at once too.
final class StopSignal: Sendable {
    private struct State {
        var fired = false
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Wakes every waiter, and makes later waits return at once.
    func fire() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            guard !s.fired else { return [] }
            s.fired = true
            defer { s.waiters.removeAll() }
            return Array(s.waiters.values)
        }
        for w in waiters { w.resume() }
    }

    /// Returns when the signal fires or the calling task is cancelled.
    func wait() async {
        let id = state.withLock { s -> UInt64 in
            defer { s.nextID += 1 }
            return s.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { s -> Bool in
                    if s.fired || Task.isCancelled { return true }
                    s.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }
}
