import Synchronization

/// A value that tests wait on: every change wakes the waiters whose condition now holds.
///
/// `let w = Watched([String]())`; a producer calls `w.update { $0.append(line) }`; a test
/// calls `try await w.wait(for: "a line", timeout: .seconds(10)) { $0.contains(...) }`.
/// Nothing polls: a waiter's condition is checked when it starts waiting and after each
/// `update`, under the lock (keep conditions cheap). The timeout only bounds the wait.
final class Watched<Value: Sendable>: Sendable {
    private struct Waiter {
        let id: Int
        let condition: @Sendable (Value) -> Bool
        let continuation: CheckedContinuation<Value?, Never>
    }

    private struct State {
        var value: Value
        var waiters: [Waiter] = []
        var nextID = 0
        /// Waits cancelled before they got to register.
        var cancelled: Set<Int> = []
    }

    private let state: Mutex<State>

    init(_ value: Value) { state = Mutex(State(value: value)) }

    /// The value now.
    var value: Value { state.withLock { $0.value } }

    /// Changes the value and wakes every waiter whose condition holds afterwards.
    @discardableResult
    func update<R>(_ change: (inout Value) -> R) -> R {
        let (result, woken, value) = state.withLock { s -> (R, [CheckedContinuation<Value?, Never>], Value) in
            let result = change(&s.value)
            guard !s.waiters.isEmpty else { return (result, [], s.value) }
            var woken: [CheckedContinuation<Value?, Never>] = []
            s.waiters.removeAll { w in
                guard w.condition(s.value) else { return false }
                woken.append(w.continuation)
                return true
            }
            return (result, woken, s.value)
        }
        for c in woken { c.resume(returning: value) }
        return result
    }

    /// Waits until `condition` holds and returns the value it held for; throws a
    /// `ProcessError` naming `what` after `timeout`.
    @discardableResult
    func wait(for what: @autoclosure () -> String, timeout: Duration = .seconds(10),
              until condition: @escaping @Sendable (Value) -> Bool) async throws -> Value {
        let id = state.withLock { s -> Int in
            s.nextID += 1
            return s.nextID
        }
        let got = try await withThrowingTaskGroup(of: Value?.self) { group -> Value? in
            group.addTask { await self.suspend(id, condition) }
            // The bound of the wait, not a synchronisation: it only ends a wait that failed.
            group.addTask { try await Task.sleep(for: timeout); return nil }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
        guard let got else {
            throw ProcessError(description: "timed out after \(timeout) waiting for \(what())")
        }
        return got
    }

    /// Suspends until `condition` holds (the value) or the task is cancelled (`nil`).
    private func suspend(_ id: Int, _ condition: @escaping @Sendable (Value) -> Bool) async -> Value? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Value?, Never>) in
                let now = state.withLock { s -> Value?? in
                    if s.cancelled.remove(id) != nil { return .some(nil) }
                    if condition(s.value) { return .some(s.value) }
                    s.waiters.append(Waiter(id: id, condition: condition, continuation: c))
                    return .none
                }
                if let now { c.resume(returning: now) }
            }
        } onCancel: {
            let waiter = state.withLock { s -> Waiter? in
                if let i = s.waiters.firstIndex(where: { $0.id == id }) { return s.waiters.remove(at: i) }
                s.cancelled.insert(id)
                return nil
            }
            waiter?.continuation.resume(returning: nil)
        }
    }
}
