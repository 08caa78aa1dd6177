import Foundation

/// An MQTT client on libmosquitto that stays connected: it reconnects with backoff after
/// any failure, resubscribes, and keeps QoS>0 publishes queued while offline.
///
/// It is complete when made: its callbacks are given to `start(handlers:)`, which hands them
/// to the network thread, so nothing is filled in later. All callbacks run on that thread (see
/// `MQTTClientHandlers`).
package final class MQTTClient: Sendable {
    let core: ClientCore

    /// Validates `options` and prepares the client; nothing touches the network yet. `log`
    /// takes the client's log lines (never the password), from now on.
    package init(options: MQTTClientOptions,
                 log: @escaping @Sendable (LogLevel, String) -> Void = { _, _ in }) throws(MQTTError) {
        core = try ClientCore(options: options, log: log)
    }

    deinit {
        // The thread holds the core; ask it to end so the handle is destroyed.
        requestStop()
    }

    /// Starts the network thread, which connects (retrying) in the background and calls
    /// `handlers` until the client stops. Never blocks; a second call does nothing.
    package func start(handlers: MQTTClientHandlers) {
        let begin = core.state.withLock { s -> Bool in
            if s.started || s.stopRequested { return false }
            s.started = true
            return true
        }
        guard begin else { return }
        let core = self.core, handlers = handlers.core
        Worker.run(name: "mqtt \(core.options.clientID)") { core.runNetworkLoop(handlers: handlers) }
    }

    /// Publishes a message and returns its message id (the one `onPublished` reports).
    ///
    /// QoS 1 and 2 messages are queued while offline and sent on reconnect: that is
    /// success, never retry it (a retry would be a duplicate). QoS 0 while offline throws
    /// `.notConnected`.
    @discardableResult
    ///
    /// `deferWake`: leave the network thread asleep until `flushDeferredWake()` (a caller that
    /// publishes a batch from another client's callbacks wakes this one once per batch).
    package func publish(topic: String, payload: [UInt8], qos: Int, retain: Bool,
                        userProperties: [(name: String, value: String)] = [],
                        deferWake: Bool = false) throws(MQTTError) -> Int32 {
        guard (0...2).contains(qos) else { throw .invalidQoS(qos) }
        // The topic itself is checked by libmosquitto, on every publish that names it (one
        // named by its alias alone was checked when the alias was set up): a refusal is
        // told apart by `failure(_:topic:)`, so a valid topic is not checked twice.
        guard !topic.isEmpty else { throw .invalidTopic(topic) }
        guard let length = Int32(exactly: payload.count), length <= MQTTLimits.maxPayload else {
            throw .payloadTooLarge(payload.count)
        }
        if !userProperties.isEmpty, core.options.protocolVersion != .v5 { throw .userPropertiesRequireMQTT5 }
        let handle = core.handle
        var mid: Int32 = 0
        // `topic` nil: a QoS 0 publish named by its topic alias alone (TopicAliases).
        let send = { (topic: String?, properties: PropertyList?) -> MosquittoCode in
            handle.publish(mid: &mid, topic: topic, payload: payload, length: length, qos: qos,
                           retain: retain, properties: properties)
        }
        defer {
            if deferWake { core.wakeDeferred.store(true, ordering: .releasing) } else { core.wakeup.signal() }
        }
        if qos == 0 {
            if core.writesDirectly(topic: topic, payload: payload, retain: retain, userProperties: userProperties) { return 0 }
            let rc = try core.topicAliases.publish(topic: topic, userProperties: userProperties, send)
            if !rc.isSuccess { throw Self.failure(rc, topic: topic) }
            return mid
        }
        // Handed to libmosquitto outside the client state's lock, which the network thread
        // takes for every acknowledgement: an acknowledgement that comes before the mid is
        // recorded is kept for it (PublishAcknowledgements).
        core.state.withLock { $0.beginPublish() }
        let rc: MosquittoCode
        if userProperties.isEmpty {
            rc = send(topic, nil)
        } else {
            // Under the lock of the reused list (publishing threads only): libmosquitto copies it.
            do {
                rc = try core.reusedProperties.withLock { reused throws(MQTTError) -> MosquittoCode in
                    send(topic, try reused.list(for: userProperties))
                }
            } catch {
                core.state.withLock { $0.endPublish(mid: nil) }
                throw error
            }
        }
        // NO_CONN for QoS>0: libmosquitto queued the message; it goes out on reconnect.
        let queued = rc.isSuccess || rc == .noConnection
        core.state.withLock { $0.endPublish(mid: queued ? mid : nil) }
        if !queued { throw Self.failure(rc, topic: topic) }
        return mid
    }

    /// The error for a publish libmosquitto refused with `rc`: `invalidTopic` when the topic
    /// is not one to publish to (a wildcard, invalid UTF-8), else what `rc` says.
    private static func failure(_ rc: MosquittoCode, topic: String) -> MQTTError {
        if !MosquittoHandle.isPublishTopic(topic) { return .invalidTopic(topic) }
        do throws(MQTTError) {
            try MQTTError.check(rc.rawValue)
        } catch {
            return error
        }
        return .invalidTopic(topic)
    }

    /// Replaces the subscriptions. While connected, the difference is sent right away
    /// (SUBSCRIBE for new ones, UNSUBSCRIBE for dropped ones); otherwise on the next connect.
    /// An invalid subscription (bad filter or QoS) is logged as an error and left out.
    func setSubscriptions(_ subscriptions: [MQTTSubscription]) {
        let valid = subscriptions.filter { sub in
            do { try ClientCore.validate(sub); return true } catch {
                core.log(.error, "ignoring subscription: \(error)")
                return false
            }
        }
        core.state.withLock { s in
            s.desired = SubscriptionPlan.unique(valid)
            s.refused = s.refused.filter { s.desired.contains($0) }
            guard s.connected else { return }
            let plan = SubscriptionPlan(desired: s.desired, held: s.heldOrPending)
            if !plan.isEmpty { core.sendPlan(plan, state: &s) }
        }
        core.wakeup.signal()
    }

    /// Stops reading from the broker for good, while writing goes on: a message the broker
    /// sends from now on is not read, so it is not acknowledged and stays the broker's (in
    /// a persistent session it is delivered again on the next connect). What a stop uses to
    /// stop taking new messages before it finishes those in flight (the graceful stop).
    /// Publishes made after this are written, but their acknowledgements are not read.
    /// Returns when the read batch in progress is over (bounded): call it off the cooperative pool.
    func pauseReads() {
        core.readsPaused.store(true, ordering: .releasing)
        core.wakeup.signal()
        // The batch being read when this is called still runs its callbacks: wait (bounded)
        // until the network thread is past it, so that every message read is known to the
        // caller when this returns. Not connected: the thread reads nothing anyway.
        if isConnected { _ = core.readsPausedSeen.wait(timeout: .now() + .seconds(5)) }
    }

    /// Sends what `publish(deferWake: true)` queued since the last call: on a connection that
    /// accepts guest writes (`MQTTClientOptions.acceptsGuestWrites`) the calling thread writes
    /// it when the network thread is not in a turn; otherwise, or when it could not, the
    /// network thread is woken to write it.
    func flushDeferredWake() {
        guard core.wakeDeferred.exchange(false, ordering: .acquiringAndReleasing) else { return }
        if !core.writeQueuedAsGuest() { core.wakeup.signal() }
    }

    /// `true` between an accepted CONNACK and the loss of that connection.
    var isConnected: Bool { core.state.withLock { $0.connected } }

    /// `true` when every current subscription was granted by a SUBACK on this connection
    /// (or is held by a present session).
    var isSubscribed: Bool { core.state.withLock { $0.isSubscribed } }

    /// Our publishes the broker acknowledged with a failure reason code (MQTT 5 only:
    /// e.g. 0x87 not authorized for a topic its ACL refuses); each is also logged.
    var refusedPublishCount: Int { core.refusedPublishes.load(ordering: .relaxed) }

    /// Turns of the network thread that paused for the next batch (`MQTTClientOptions.readCoalescing`).
    var readPauseCount: UInt { core.readPauses.load(ordering: .relaxed) }

    /// Stops the client: waits up to `flushTimeout` for our QoS>0 publishes to be
    /// acknowledged, sends DISCONNECT (normal: the broker drops the will), and joins the
    /// network thread. Blocks the caller; call it off the cooperative pool.
    package func stop(flushTimeout: Duration) {
        // Semaphore: signalled from libmosquitto's PUBACK callback when the last publish is acknowledged.
        let waiter = DispatchSemaphore(value: 0)
        let (started, mustWait) = core.state.withLock { s -> (Bool, Bool) in
            guard s.started, !s.stopRequested, s.unacknowledgedCount > 0, flushTimeout > .zero else { return (s.started, false) }
            s.flushWaiter = waiter
            return (true, true)
        }
        if mustWait, waiter.wait(timeout: Self.deadline(flushTimeout)) == .timedOut {
            let left = core.state.withLock { s -> Int in
                s.flushWaiter = nil
                return s.unacknowledgedCount
            }
            core.log(.warning, "stopping with \(left) unacknowledged publish(es) after \(flushTimeout.text)")
        }
        requestStop()
        guard started else { return }
        let bound = ClientCore.disconnectGrace + .seconds(3)
        if !core.ended.wait(until: .now + bound, for: { core.hasEnded.load(ordering: .acquiring) }) {
            core.log(.warning, "network thread still busy (connecting?) after stop; leaving it to finish")
        }
    }

    private func requestStop() {
        let first = core.state.withLock { s -> Bool in
            defer { s.stopRequested = true }
            return !s.stopRequested
        }
        guard first else { return }
        // Under the write step: a guest write in progress ends before the DISCONNECT is queued,
        // and none starts after it (it sees the stop). On the network thread itself (a deinit
        // in one of its callbacks) the step is that thread's already: no guest writes meanwhile.
        if core.wakeup.isLoopThread {
            core.handle.disconnect()
        } else {
            core.inWriteStep { core.handle.disconnect() }
        }
        core.wakeup.signal()
        core.wake.notify()
    }

    private static func deadline(_ d: Duration) -> DispatchTime {
        .now() + d.dispatchInterval
    }
}

extension MQTTClient {
    /// The linked libmosquitto's version, e.g. `2.0.11`.
    package static var libraryVersion: String { mosquittoLibraryVersion() }

    /// Lends an executable's socket buffers to every client made from now on, when the linked
    /// libmosquitto is one they were checked against (see `SocketBufferHooks`); otherwise
    /// clients read and write packet by packet, and the refusal is logged by the first client.
    package static func lendSocketBuffers(_ hooks: SocketBufferHooks) {
        SocketBufferHooks.install(hooks)
    }
}
