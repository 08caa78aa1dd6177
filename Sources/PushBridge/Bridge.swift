import CMalloc
import Foundation
import Synchronization

/// The running bridge: broker client → pipeline → per-topic ordering → publish,
/// with counters and the status topic. `run()` returns after a graceful stop.
public final class Bridge: Sendable {
    /// The version printed by `--version` and put in the stats.
    public static let version = "0.1.0"

    public let config: BridgeConfig
    let logger: Logger
    /// The pipeline for the current config; SIGHUP swaps it (see `reload`).
    private let pipelineSlot: Mutex<Pipeline>
    let serviceExtension: ExtensionFactory?
    /// The pipeline messages arriving now go through.
    var pipeline: Pipeline { pipelineSlot.withLock { $0 } }

    /// Installs `new` for messages arriving from now on; returns the previous one.
    func swapPipeline(_ new: Pipeline) -> Pipeline {
        pipelineSlot.withLock { slot in
            let old = slot
            slot = new
            return old
        }
    }

    /// The broker client (subscriptions, status, stats) once `run()` has created it.
    func currentClient() -> MQTTClient? { clientBox.client.withLock { $0 } }
    /// The output connection (QoS>0 display and dead-letter publishes) once `run()` has created it.
    func currentPublisher() -> MQTTClient? { clientBox.publisher.withLock { $0 } }
    let stats: Stats
    /// Decisions for `/api/events` readers and `monitoring.trace_topic` (DecisionFeed.swift).
    let feed: DecisionFeed
    let hop: (name: String, value: String)
    private let sequencer: TopicSequencer<Finished>
    let stopRequested = StopSignal()
    /// Backpressure, the journal and publish tracking (SPEC section 9).
    let durability: Durability
    /// Writes the filter memory to the journal in batches (when `journal` is set).
    let memoryWriter: FilterMemoryWriter?
    /// Home Assistant discovery and events (SPEC section 11), when `homeassistant:` is set.
    let homeAssistant: HomeAssistantLink?
    /// The topics this replica handles (`partition:`, SPEC section 10); `nil`: every topic.
    let partition: Partition?

    struct Finished: Sendable {
        var topic: String
        /// The message's id (the decision feed shows it).
        var id: String
        var receivedAt: Double
        var decision: Decision
        /// The journal row, when the message was journaled.
        var seq: Int64?
        /// The topic's counters in `stats` (found once, at arrival).
        var topicSlot: Int
    }

    /// Builds a bridge for `config`; `serviceExtension` lets a program supply its own Swift extension.
    public init(config: BridgeConfig, logger: Logger, serviceExtension: ExtensionFactory? = nil) {
        self.config = config
        self.logger = logger
        let hop = (name: DisplayRenderer.hopProperty, value: config.broker.clientID)
        self.hop = hop
        self.partition = config.partition.flatMap(Partition.init)
        self.serviceExtension = serviceExtension
        let durability = Durability(config: config, logger: logger)
        self.durability = durability
        // Filter memory outlives pipelines (reloads) and, with the journal, the process.
        let memory = FilterMemory(persistent: durability.journal != nil, logger: logger)
        if let journal = durability.journal {
            FilterMemoryWriter.restore(memory, from: journal, logger: logger)
            memoryWriter = FilterMemoryWriter(journal: journal, memory: memory, logger: logger)
        } else {
            memoryWriter = nil
        }
        self.pipelineSlot = Mutex(Pipeline(config: config, logger: logger, serviceExtension: serviceExtension,
                                           hop: hop, memory: memory))
        let stats = Stats(maxTopics: config.monitoring.maxTopics, version: Self.version,
                          startedAt: Date().timeIntervalSince1970)
        self.stats = stats
        let box = ClientBox()
        let feed = DecisionFeed(includeText: config.monitoring.logLevel == .debug, traceTopic: config.monitoring.traceTopic,
                                traceProperties: config.broker.protocolVersion == .v5 ? [hop] : [])
        self.feed = feed
        let homeAssistant = HomeAssistantLink(config: config, version: Self.version, hop: hop, logger: logger)
        self.homeAssistant = homeAssistant
        self.sequencer = TopicSequencer { finished in
            Bridge.emit(finished, client: box, durability: durability, stats: stats, feed: feed, logger: logger)
            homeAssistant?.delivered(finished.decision, sourceTopic: finished.topic, client: box.client.withLock { $0 })
        }
        self.clientBox = box
    }

    let clientBox: ClientBox

    /// State the sequencer's emit closure shares with the bridge: the two clients (set once
    /// before any message flows), messages in flight.
    final class ClientBox: Sendable {
        let client = Mutex<MQTTClient?>(nil)
        let publisher = Mutex<MQTTClient?>(nil)
        let inFlight = Atomic<Int>(0)
    }

    /// Connects, processes messages until SIGTERM/SIGINT (or `requestStop()`), then drains and stops.
    public func run() async throws {
        let m = config.monitoring
        let will = m.statusTopic.map { MQTTWill(topic: $0, payload: Array("offline".utf8), qos: 1, retain: true) }
        if let error = durability.openError { throw error }
        var options = MQTTClientOptions(config: config.broker, will: will,
                                        subscriptions: Self.subscriptions(for: config))
        options.receiveMaximum = Durability.receiveMaximum
        // Nothing published here is tracked (status, stats, QoS 0 displays): only the output
        // connection's mids go to `durability` (mids are per connection).
        let handlers = MQTTClientHandlers(
            onMessage: { [weak self] message in self?.receive(message) },
            onConnection: { [weak self] event in self?.connectionChanged(event) },
            log: { [logger] level, text in logger.log(level, text) },
            onReadsDone: { [durability, clientBox] in
                durability.readsDone()
                clientBox.publisher.withLock { $0 }?.flushDeferredWake()
            })
        let client = try MQTTClient(options: options, handlers: handlers)
        if client.groupsReads { durability.journal?.groupCommits() }
        let outputFailed = Atomic<Bool>(false)
        let publisher = try MQTTClient(options: Self.outputOptions(for: config.broker), handlers: MQTTClientHandlers(
            onPublished: { [weak self] mid in self?.acknowledged(mid) },
            onConnection: { event in if case .connectFailed = event { outputFailed.store(true, ordering: .relaxed) } },
            log: { [logger] level, text in logger.log(level, text) }))
        clientBox.client.withLock { $0 = client }
        clientBox.publisher.withLock { $0 = publisher }
        var server: MetricsServer?
        if let address = m.http {
            do {
                server = try MetricsServer(
                    address: address,
                    metrics: { [weak self] in self.map { prometheusText($0.snapshot()) + $0.feed.prometheusText() } ?? "" },
                    ready: { client.isConnected && client.isSubscribed && publisher.isConnected },
                    dashboard: DashboardEndpoints(feed: feed, snapshot: { [weak self] in self?.snapshot().json() ?? [] },
                                                  totals: { [stats] in stats.snapshot(now: 0).totals }))
                logger.info("monitoring on http://\(address) (dashboard /, /api/stats, /api/events, /metrics, /healthz, /readyz)")
            } catch {
                logger.error("monitoring.http \(address): \(error)")
                throw error
            }
        }
        for entry in durability.replay() { process(entry.message, id: entry.id, seq: entry.seq) }
        durability.start()
        memoryWriter?.start()
        // Loading the config (YAML nodes, template sources) and the replay leave freed heap
        // that glibc keeps mapped between live blocks; give it back before traffic starts
        // (1.2 MB with 1 000 routes): the peak RSS is then what the running bridge needs.
        _ = malloc_trim(0)
        // The output connection first, so that messages arriving on the intake connection
        // find it up (a QoS 0 display publish fails while it is offline); bounded, since
        // both retry on their own.
        publisher.start()
        let outputDeadline = ContinuousClock.now + .seconds(5)
        while !publisher.isConnected, !outputFailed.load(ordering: .relaxed), ContinuousClock.now < outputDeadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        client.start()
        logger.info("pushbridge \(Self.version) started: \(config.routes.count) route(s), broker \(config.broker.host):\(config.broker.effectivePort)")
        let statsTask = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: m.interval)
                if Task.isCancelled { break }
                self?.publishStats()
            }
        }
        await waitForStop()
        statsTask.cancel()
        await drain(client, publisher: publisher)
        server?.stop()
    }

    /// The counters now, with the delivery layer's events.
    public func snapshot() -> StatsSnapshot {
        var s = stats.snapshot(now: Date().timeIntervalSince1970)
        s.filterEvictions = pipeline.filterMemory.evictions.filter { $0.value > 0 }
        let c = durability.counters
        s.delivery = [
            "qos0_dropped": c.qos0Dropped.load(ordering: .relaxed),
            "publish_failed": c.publishFailures.load(ordering: .relaxed),
            "publish_refused": (currentClient()?.refusedPublishCount ?? 0) + (currentPublisher()?.refusedPublishCount ?? 0),
            "redeliveries_skipped": c.redeliveriesSkipped.load(ordering: .relaxed),
            "replayed": c.replayed.load(ordering: .relaxed),
            "journal_overflows": c.journalOverflows.load(ordering: .relaxed),
            "journal_errors": c.journalErrors.load(ordering: .relaxed),
        ]
        return s
    }

    /// Publishes the retained stats snapshot (SPEC section 7), on the intake connection
    /// unless `connection` is given.
    func publishStats(through connection: MQTTClient? = nil) {
        guard let topic = config.monitoring.statsTopic else { return }
        let client = connection ?? clientBox.client.withLock { $0 }
        let snapshot = self.snapshot()
        _ = try? client?.publish(topic: topic, payload: snapshot.json(), qos: 1, retain: true,
                                 userProperties: config.broker.protocolVersion == .v5 ? [hop] : [])
    }

    // MARK: - Per message

    private func receive(_ message: InboundMessage) {
        if let homeAssistant, homeAssistant.intercept(message, client: currentClient()) { return }
        // Another partition's topic: dropped before the journal and the pipeline; returning
        // lets libmosquitto send the QoS 1 PUBACK as for any message.
        if let partition, !partition.handles(topic: message.topic) {
            stats.partitionSkipped()
            return
        }
        if message.property(hop.name) == hop.value {
            stats.loopDropped(topic: message.topic)
            return
        }
        guard let admitted = durability.admit(message) else { return }
        // A live message is decided at its arrival time (one clock read fewer per message).
        process(message, id: admitted.id, seq: admitted.seq, now: message.receivedAt)
    }

    private func process(_ message: InboundMessage, id: String, seq: Int64?,
                         now: Double = Date().timeIntervalSince1970) {
        // `now` is the arrival time of a live message, a fresh clock read for a replayed one.
        let topicSlot = stats.received(topic: message.topic, at: now)
        clientBox.inFlight.add(1, ordering: .relaxed)
        switch pipeline.decide(message, id: id, now: now) {
        case .decided(let decision):
            // Decided here: no ticket, no lane, no closure (the common case).
            sequencer.pass(message.topic, Finished(topic: message.topic, id: id, receivedAt: message.receivedAt,
                                                   decision: decision, seq: seq, topicSlot: topicSlot))
        case .waiting(let waiting):
            let ticket = sequencer.enter(message.topic)
            let sequencer = self.sequencer
            waiting.start { decision in
                sequencer.complete(ticket, Finished(topic: message.topic, id: id, receivedAt: message.receivedAt,
                                                    decision: decision, seq: seq, topicSlot: topicSlot))
            }
        }
    }

    private static func emit(_ f: Finished, client box: ClientBox, durability: Durability, stats: Stats,
                             feed: DecisionFeed, logger: Logger) {
        let client = box.client.withLock { $0 }
        let output = box.publisher.withLock { $0 }
        durability.emit(f.decision, seq: f.seq, receivedAt: f.receivedAt, client: client, output: output, stats: stats)
        if logger.enabled(.debug) {
            logger.debug("\(f.topic): \(f.decision.outcome.rawValue) (\(f.decision.rule))")
        }
        stats.finished(topicSlot: f.topicSlot, decision: f.decision)
        feed.offer(topic: f.topic, id: f.id, decision: f.decision, client: client)
        box.inFlight.subtract(1, ordering: .releasing)
    }

    private func acknowledged(_ mid: Int32) {
        if let t = durability.acknowledged(mid) {
            stats.endToEndLatency(seconds: Date().timeIntervalSince1970 - t)
        }
    }

    private func connectionChanged(_ event: ConnectionEvent) {
        switch event {
        case .connected(let sessionPresent):
            stats.setConnected(true)
            durability.connected(sessionPresent: sessionPresent)
            logger.debug("session present: \(sessionPresent)")
            if let topic = config.monitoring.statusTopic {
                let client = clientBox.client.withLock { $0 }
                _ = try? client?.publish(topic: topic, payload: Array("online".utf8), qos: 1, retain: true,
                                         userProperties: [])
            }
            if let homeAssistant, let client = currentClient() { homeAssistant.announce(client) }
        case .disconnected(let reason):
            stats.setConnected(false)
            logger.debug("disconnected: \(reason)")  // the client logged it with its retry delay
        case .connectFailed(let reason):
            stats.setConnected(false)
            logger.debug("connect failed: \(reason)")  // the client logged it with its retry delay
        }
    }
}
