import Dispatch

/// The mutable state of one `MQTTClient`, kept behind its mutex.
///
/// The network thread and callers of `publish`/`setSubscriptions`/`stop` share it.
struct ClientState: Sendable {
    /// What the application wants, without repeats.
    var desired: [MQTTSubscription]
    /// Subscriptions the broker confirmed with a SUBACK and still holds (kept across
    /// connections while the session is present).
    var held: Set<MQTTSubscription> = []
    /// SUBSCRIBE packets sent on this connection and not yet acknowledged, by mid.
    var pendingSubscribes: [Int32: [MQTTSubscription]] = [:]
    /// UNSUBSCRIBE packets waiting for UNSUBACK, by mid.
    var pendingUnsubscribes: [Int32: [String]] = [:]
    /// Subscriptions the broker refused on this connection.
    var refused: Set<MQTTSubscription> = []
    /// CONNACK accepted and the socket not yet lost.
    var connected = false
    /// The current connection attempt got an accepting CONNACK.
    var accepted = false
    /// The reason the current attempt's CONNACK refused us, if it did.
    var refusal: String? = nil
    /// Our QoS>0 publishes not yet acknowledged, by mid. The publish call runs outside this
    /// lock (see `beginPublish`), so an acknowledgement can come before its mid is recorded;
    /// an unknown mid is kept only while a publish is in progress (it may be that one's),
    /// and dropped when none is (a QoS 0 mid, which nothing waits for).
    var outstanding = PublishAcknowledgements<Void>()
    /// QoS>0 publishes handed to libmosquitto whose mid is not in `outstanding` yet.
    var publishesInProgress = 0
    /// Signalled when `outstanding` becomes empty, with no publish in progress, while
    /// `stop` waits for it.
    // Semaphores: signalled from libmosquitto's PUBACK and SUBACK callbacks, for a thread that waits for them.
    var flushWaiter: DispatchSemaphore? = nil
    /// Signalled when the subscriptions settle (see `settleSubscribeWaiters`).
    var subscribeWaiters: [DispatchSemaphore] = []
    /// `start()` was called.
    var started = false
    /// `stop()` was called (or the client was dropped): the network thread ends.
    var stopRequested = false

    init(desired: [MQTTSubscription]) {
        self.desired = SubscriptionPlan.unique(desired)
    }

    /// SUBACK for every wanted subscription (and UNSUBACK for every dropped one) received,
    /// none refused, on a live connection.
    var isSubscribed: Bool {
        connected && pendingSubscribes.isEmpty && pendingUnsubscribes.isEmpty && refused.isEmpty && desired.allSatisfy { held.contains($0) }
    }

    /// Subscriptions the broker has or is about to have: held, less in-flight UNSUBSCRIBEs,
    /// plus in-flight SUBSCRIBEs.
    var heldOrPending: Set<MQTTSubscription> {
        let leaving = Set(pendingUnsubscribes.values.joined())
        var all = held.filter { !leaving.contains($0.filter) }
        for subs in pendingSubscribes.values {
            for s in subs {
                all = all.filter { $0.filter != s.filter }
                all.insert(s)
            }
        }
        return all
    }

    /// Resets what belongs to one connection, at an accepting CONNACK.
    ///
    /// Without a present session the broker forgot our subscriptions.
    mutating func beginConnection(sessionPresent: Bool) {
        connected = true
        accepted = true
        pendingSubscribes = [:]
        pendingUnsubscribes = [:]
        refused = []
        if !sessionPresent { held = [] }
    }

    /// Records a SUBACK: `granted[i]` is the QoS granted to the i-th subscription of packet
    /// `mid`, or a failure code (≥ 0x80). Returns the subscriptions the broker refused.
    mutating func acknowledgeSubscribe(mid: Int32, granted: [Int32]) -> [(MQTTSubscription, Int32)] {
        guard let subs = pendingSubscribes.removeValue(forKey: mid) else { return [] }
        var failures: [(MQTTSubscription, Int32)] = []
        for (i, s) in subs.enumerated() {
            let code = i < granted.count ? granted[i] : 0x80
            held = held.filter { $0.filter != s.filter }
            if code >= 0x80 {
                refused.insert(s)
                failures.append((s, code))
            } else {
                held.insert(s)
                refused.remove(s)
            }
        }
        return failures
    }

    /// Records an UNSUBACK for packet `mid`.
    mutating func acknowledgeUnsubscribe(mid: Int32) {
        guard let filters = pendingUnsubscribes.removeValue(forKey: mid) else { return }
        let gone = Set(filters)
        held = held.filter { !gone.contains($0.filter) }
        refused = refused.filter { !gone.contains($0.filter) }
    }

    /// Wakes the `MQTTClient.waitUntilSubscribed` callers once nothing is left to wait
    /// for: every subscription in place, or the connection gone.
    mutating func settleSubscribeWaiters() {
        guard !subscribeWaiters.isEmpty, !connected || isSubscribed else { return }
        for w in subscribeWaiters { w.signal() }
        subscribeWaiters.removeAll()
    }

    /// Publishes not yet acknowledged, counting those still being handed to libmosquitto.
    var unacknowledgedCount: Int { outstanding.count + publishesInProgress }

    /// Called before a QoS>0 publish is handed to libmosquitto (outside this lock, so that
    /// the network thread's acknowledgements do not wait for the whole call).
    mutating func beginPublish() {
        publishesInProgress += 1
    }

    /// Called after the publish of `beginPublish` returned: `mid` is the id libmosquitto gave
    /// it, or nil when the publish failed and nothing was queued.
    mutating func endPublish(mid: Int32?) {
        if let mid { _ = outstanding.register(mid, ()) }
        publishesInProgress -= 1
        if publishesInProgress == 0 { outstanding.forgetEarly() }
        signalFlushWaiterIfDone()
    }

    /// Records the acknowledgement of a publish; signals a waiting `stop` when none remain.
    mutating func acknowledgePublish(mid: Int32) {
        _ = outstanding.acknowledge(mid, mayComeFirst: publishesInProgress > 0)
        signalFlushWaiterIfDone()
    }

    private mutating func signalFlushWaiterIfDone() {
        if outstanding.isEmpty, publishesInProgress == 0, let waiter = flushWaiter {
            flushWaiter = nil
            waiter.signal()
        }
    }
}
