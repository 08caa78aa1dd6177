import CMosquitto
import Foundation
import Synchronization

/// The part of an `MQTTClient` that libmosquitto calls back into and the network thread runs.
///
/// While the network thread runs, it is the callback context (`userdata`) together with the
/// handlers the client was started with (`ClientLoop`): every stored property is a `let` of a
/// `Sendable` type and the mutable state sits in a `Mutex`. Lock order: this mutex may be
/// taken inside libmosquitto's callback mutex, and libmosquitto's queue mutexes may be taken
/// inside it (publish, subscribe); nothing under it waits for the callback mutex.
final class ClientCore: Sendable {
    let options: MQTTClientOptions
    /// Where the core's own log lines go (never the password).
    let log: @Sendable (LogLevel, String) -> Void
    let state: Mutex<ClientState>
    /// Wakes the network thread from its backoff sleep between two connection attempts (stop).
    let wake = WaitGate()
    /// Wakes the network thread's `poll` after another thread queued a packet.
    let wakeup: LoopWakeup
    /// A publish asked to wake the loop later (`MQTTClient.flushDeferredWake`).
    let wakeDeferred = Atomic<Bool>(false)
    /// Callbacks libmosquitto has made (network thread only): the loop's sign that a read
    /// completed a packet.
    let callbacksRun = Atomic<UInt>(0)
    /// Set once when the network thread has ended; `ended` wakes `stop()`, which waits for it.
    let hasEnded = Atomic<Bool>(false)
    let ended = WaitGate()
    /// Our publishes the broker acknowledged with a failure reason code (MQTT 5, ≥ 0x80).
    let refusedPublishes = Atomic<Int>(0)
    /// Set by `MQTTClient.pauseReads()`: the network thread writes but reads nothing more.
    let readsPaused = Atomic<Bool>(false)
    /// MQTT 5 topic aliases of our QoS 0 publishes, per connection.
    let topicAliases: TopicAliases
    /// The property list of our QoS>0 publishes with user properties, reused while they repeat.
    let reusedProperties = Mutex(ReusedProperties())
    /// `options.acknowledgementReadDelay` as `poll`'s timeout (NetworkThread.swift), made once.
    let acknowledgementReadDelayMilliseconds: Int32?
    /// A turn that read without writing may leave its TCP ACK to the next turn (NetworkThread.swift):
    /// only with the socket buffers, which tell whether a turn wrote, and not on a connection
    /// that delays its PUBACK reads (its turns read only PUBACKs).
    let defersAcknowledgements: Bool
    /// Signalled once by the network thread when it has seen `readsPaused` between two turns
    /// (the read batch in progress, with its callbacks and `onReadsDone`, is over).
    /// (A semaphore: the network thread signals it between two turns of libmosquitto's callbacks.)
    let readsPausedSeen = DispatchSemaphore(value: 0)
    let readsPausedSignalled = Atomic<Bool>(false)
    /// The executable's socket buffers, for a client on our own loop (`nil`: packet by packet).
    let socketBuffers: SocketBufferHooks?
    /// The network thread reads plain QoS 0 and QoS 1 PUBLISH packets itself (`takePublish`): with the
    /// socket buffers, unless libmosquitto's debug log is forwarded (it logs each PUBLISH it reads).
    let readsPublishes: Bool
    /// PUBLISH packets the network thread read itself, over the client's life.
    let publishesRead = Atomic<UInt>(0)
    /// Another thread may write this connection's queued packets (`options.acceptsGuestWrites`
    /// and the socket buffers).
    let acceptsGuestWrites: Bool
    /// Held by the network thread through each turn but its `poll`, and by a guest writer
    /// (`writeQueuedAsGuest`) through its write: one of them at a time touches the socket and
    /// its write-behind buffer. The value is the network thread's buffers
    /// (`SocketBufferHooks.share`, as a bit pattern), 0 until that thread has them.
    let writeStep = Mutex<UInt>(0)
    /// Packets the last turn read (network thread only), for `options.readCoalescing`.
    let lastBatch = Atomic<UInt>(0)
    /// Turns that paused before their `poll` (`options.readCoalescing`), over the client's life.
    let readPauses = Atomic<UInt>(0)
    let handle: MosquittoHandle
    private let minimumLibraryLevel: LogLevel

    init(options: MQTTClientOptions, log: @escaping @Sendable (LogLevel, String) -> Void) throws(MQTTError) {
        for s in options.subscriptions { try Self.validate(s) }
        guard (0...Int64(UInt16.max)).contains(options.keepalive.wholeSeconds(limit: .max)),
              options.keepalive.wholeSeconds() == 0 || options.keepalive.wholeSeconds() >= 5 else {
            throw .invalidOption("keepalive must be 0 or 5...65535 seconds")
        }
        guard (1...65_535).contains(options.port) else { throw .invalidOption("port \(options.port)") }
        if let r = options.receiveMaximum, !(1...65_535).contains(r) {
            throw .invalidOption("receive maximum \(r) (1...65535)")
        }
        if let problem = options.readCoalescing?.problem { throw .invalidOption(problem) }
        self.options = options
        self.log = log
        self.state = Mutex(ClientState(desired: options.subscriptions))
        self.minimumLibraryLevel = options.libraryLogLevel ?? .error
        self.topicAliases = TopicAliases(enabled: options.topicAliases, v5: options.protocolVersion == .v5)
        // Our own poll loop on TLS too: libmosquitto's `mosquitto_loop` uses select(2), which
        // refuses a socket numbered 1024 or more. OpenSSL reads and writes the TLS socket
        // itself, so the socket buffers are for plain TCP only.
        self.wakeup = try LoopWakeup()
        self.socketBuffers = options.tls == nil
            ? SocketBufferHooks.forNewClient(log: log) : nil
        self.acknowledgementReadDelayMilliseconds = options.acknowledgementReadDelay.map(Self.pollMilliseconds)
        self.defersAcknowledgements = socketBuffers != nil && options.acknowledgementReadDelay == nil
        self.acceptsGuestWrites = socketBuffers != nil && options.acceptsGuestWrites
        self.readsPublishes = socketBuffers != nil && (options.libraryLogLevel.map { $0 > .debug } ?? true)
        // No `userdata` yet: the network thread sets its `ClientLoop` while it runs.
        let handle = try MosquittoHandle(clientID: options.clientID, cleanStart: options.cleanStart,
                                         buffers: socketBuffers)
        self.handle = handle
        try handle.configure(options)
        let forwardLogs = options.libraryLogLevel.map { $0 <= .debug || options.tls != nil } ?? false
        MosquittoCallbacks.install(on: handle, forwardLogs: forwardLogs)
    }

    /// Throws when a subscription's filter or QoS is not valid.
    static func validate(_ s: MQTTSubscription) throws(MQTTError) {
        guard mosquitto_sub_topic_check(s.filter) == MosquittoCode.success.rawValue else {
            throw .invalidTopicFilter(s.filter)
        }
        guard (0...2).contains(s.qos) else { throw .invalidQoS(s.qos) }
    }

    // MARK: callbacks (network thread)

    /// A CONNACK: `true` when it accepted the connection (the caller reports it).
    func didConnect(code: Int32, sessionPresent: Bool, properties: OpaquePointer? = nil) -> Bool {
        guard code == 0 else {
            // v5 reason codes and 3.1.1 return codes have separate tables.
            let reason = options.protocolVersion == .v5
                ? String(cString: mosquitto_reason_string(code))
                : String(cString: mosquitto_connack_string(code))
            state.withLock { $0.refusal = "\(reason) (CONNACK code \(code))" }
            return false
        }
        topicAliases.connected(properties: properties)
        state.withLock { s in
            s.beginConnection(sessionPresent: sessionPresent)
            let plan = SubscriptionPlan(desired: s.desired, held: s.held)
            if plan.isEmpty { return }
            sendPlan(plan, state: &s)
        }
        log(.info, "connected to \(options.endpoint) as '\(options.clientID)'"
            + (sessionPresent ? " (session present)" : ""))
        return true
    }

    func didDisconnect(code: Int32) {
        state.withLock { s in
            s.connected = false
            s.settleSubscribeWaiters()
        }
    }

    func didPublish(mid: Int32, reasonCode: Int32) {
        if reasonCode >= 0x80 {
            refusedPublishes.add(1, ordering: .relaxed)
            log(.warning, "broker rejected publish mid \(mid): \(String(cString: mosquitto_reason_string(reasonCode)))")
        }
        state.withLock { $0.acknowledgePublish(mid: mid) }
    }

    func didReceive(_ message: mosquitto_message, properties: OpaquePointer?, to onMessage: CoreHandlers.Message) {
        // Everything is copied: libmosquitto frees the message when the callback returns.
        let topic = message.topic.map { String(cString: $0) } ?? ""
        let count = Int(max(message.payloadlen, 0))
        let payload: [UInt8] = message.payload.map {
            Array(UnsafeRawBufferPointer(start: $0, count: count))
        } ?? []
        deliver(topic: topic, payload: payload, qos: Int(message.qos), retain: message.retain,
                mid: message.mid, properties: properties, to: onMessage)
    }

    /// A received message to `onMessage`, stamped with the time now: from libmosquitto's
    /// callback, or a PUBLISH we read ourselves (ReadStep.swift).
    func deliver(topic: String, payload: [UInt8], qos: Int, retain: Bool, mid: Int32, properties: OpaquePointer?,
                 to onMessage: CoreHandlers.Message) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let read = properties == nil ? (userProperties: [], subscriptionIdentifiers: []) : PropertyList.received(properties)
        onMessage(topic, payload, qos, retain, read.userProperties,
                           Double(now.tv_sec) + Double(now.tv_nsec) / 1e9, mid,
                           read.subscriptionIdentifiers)
    }

    func didSubscribe(mid: Int32, granted: [Int32]) {
        let failures = state.withLock { s in
            defer { s.settleSubscribeWaiters() }
            return s.acknowledgeSubscribe(mid: mid, granted: granted)
        }
        for (sub, code) in failures {
            let reason = code == 0x80 ? "refused" : String(cString: mosquitto_reason_string(code))
            log(.error, "broker refused subscription '\(sub.filter)': \(reason)")
        }
    }

    func didUnsubscribe(mid: Int32) {
        state.withLock { s in
            s.acknowledgeUnsubscribe(mid: mid)
            s.settleSubscribeWaiters()
        }
    }

    /// `true` when a libmosquitto log line of `level` is forwarded.
    func wantsLibraryLog(_ level: LogLevel) -> Bool { level >= minimumLibraryLevel }

    // MARK: subscriptions

    /// Sends `plan`'s packets and records them as pending. Called with the lock held
    /// (`state` is the locked value); libmosquitto only queues the packets here.
    func sendPlan(_ plan: SubscriptionPlan, state s: inout ClientState) {
        // UNSUBSCRIBE first: when the last SUBACK is in, the broker has handled both.
        if !plan.unsubscribe.isEmpty {
            var mid: Int32 = 0
            let rc = Self.withCStrings(plan.unsubscribe) { count, filters in
                mosquitto_unsubscribe_multiple(handle.raw, &mid, count, filters, nil)
            }
            do {
                try MQTTError.check(rc)
                s.pendingUnsubscribes[mid] = plan.unsubscribe
            } catch {
                log(.error, "unsubscribe from \(plan.unsubscribe) failed: \(error)")
            }
        }
        for group in plan.subscribe {
            // MQTT 5: Retain Handling 1 on every subscription, so resubscribing to an existing
            // subscription does not make the broker replay its retained store (docs/decisions.md, "Retained state").
            var options: Int32 = 0
            if self.options.protocolVersion == .v5 {
                options |= Int32(MQTT_SUB_OPT_SEND_RETAIN_NEW.rawValue)
                if group[0].noLocal { options |= Int32(MQTT_SUB_OPT_NO_LOCAL.rawValue) }
            }
            var mid: Int32 = 0
            // One identifier per SUBSCRIBE (the plan gives a subscription with one its own packet).
            let properties = PropertyList()
            if self.options.protocolVersion == .v5, let id = group[0].identifier {
                do { try properties.addVarint(MQTT_PROP_SUBSCRIPTION_IDENTIFIER, UInt32(id)) } catch {
                    log(.error, "cannot build SUBSCRIBE properties: \(error)")
                }
            }
            let rc = Self.withCStrings(group.map(\.filter)) { count, filters in
                mosquitto_subscribe_multiple(handle.raw, &mid, count, filters, Int32(group[0].qos), options, properties.head)
            }
            do {
                try MQTTError.check(rc)
                s.pendingSubscribes[mid] = group
            } catch {
                log(.error, "subscribe to \(group.map(\.filter)) failed: \(error)")
            }
        }
    }

    /// Calls `body` with a C array of C strings copied from `strings`.
    static func withCStrings<R>(_ strings: [String],
                                _ body: (Int32, UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        return copies.withUnsafeBufferPointer { body(Int32($0.count), $0.baseAddress!) }
    }
}
