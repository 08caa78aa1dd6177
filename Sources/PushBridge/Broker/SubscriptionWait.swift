import Dispatch

extension MQTTClient {
    /// Blocks until the broker has acknowledged every wanted subscription (`isSubscribed`),
    /// the connection is down, or `timeout` passes; returns `isSubscribed`. Woken by the
    /// SUBACK/UNSUBACK callbacks, not by polling. Call it off the cooperative pool.
    @discardableResult
    func waitUntilSubscribed(timeout: Duration) -> Bool {
        // Semaphore: signalled from libmosquitto's SUBACK callback on the network thread.
        let waiter = DispatchSemaphore(value: 0)
        let settled = core.state.withLock { s -> Bool in
            if !s.connected || s.isSubscribed { return true }
            s.subscribeWaiters.append(waiter)
            return false
        }
        if !settled, waiter.wait(timeout: .now() + timeout.dispatchInterval) == .timedOut {
            core.state.withLock { s in s.subscribeWaiters.removeAll { $0 === waiter } }
        }
        return isSubscribed
    }
}
