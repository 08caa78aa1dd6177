import CMalloc
import Foundation
import Synchronization

/// The running bridge: it builds the parts (`Intake`, `Pipeline`, `Publisher`,
/// `MessageFlow`, monitoring), starts them, and on SIGTERM/SIGINT drains and stops them.
/// `run()` returns after a graceful stop.
public final class Bridge: Sendable {
    /// The version printed by `--version` and put in the stats.
    public static let version = "0.1.0"

    /// The configuration this bridge runs (the last one applied by a reload).
    public let config: BridgeConfig
    let logger: BridgeLogger
    let serviceExtension: ExtensionFactory?
    let hop: (name: String, value: String)
    let stats: Stats
    /// What each stats snapshot is built from (Monitoring assembles it).
    let statsSources: StatsSources
    /// Decisions for `/api/events` readers and `monitoring.trace_topic` (DecisionFeed.swift).
    let feed: DecisionFeed
    /// Admission, the journal and replay after a restart.
    let intake: Intake
    /// The two connections and the publishes' acknowledgements.
    let publisher: Publisher
    let flow: MessageFlow
    let status: StatusReporter
    /// Writes the filter memory to the journal in batches (when `journal` is set).
    let memoryWriter: FilterMemoryWriter?
    /// The `outputs:` workers (ntfy, Web Push, webhook); `nil` when none are configured.
    let outputs: OutputSet?
    /// The attachments' sources and store, made with the first config that has attachments.
    let attachmentSlot: AttachmentSlot
    /// The payloads the routes' `lookup:` entries read, kept across reloads (a reload keeps
    /// the discovery configs the broker replayed at start: it will not replay them again).
    let lookups = LookupStore()
    /// The people (`people:`): presence, audiences and held alerts; `nil` without any.
    let people: PeopleDesk?
    /// The HTTP server's access check (`monitoring.http_auth`), kept so that a reload can give
    /// it a new token; `nil` without `monitoring.http`.
    let httpAccess: HTTPAccess?
    let stopRequested = StopSignal()
    /// The shared state in Redis (`state.redis`); `nil`: the memory is this process's and its journal's.
    let state: RedisState?

    /// Builds a bridge for `config` (nothing connects before `run()`); `serviceExtension`
    /// lets a program supply its own Swift extension. Throws when the journal cannot be
    /// opened or the broker options are not valid.
    public convenience init(config: BridgeConfig, logger: BridgeLogger, serviceExtension: ExtensionFactory? = nil) throws {
        try self.init(config: config, logger: logger, serviceExtension: serviceExtension, clock: .system)
    }

    /// As above, with the clock the extension stage and the conditions read; with
    /// `automaticConditionTimer: false` the conditions' timer is never armed (a test moves
    /// its clock and calls `flow.fireConditions()`), nor the outputs' (`outputs.tick()`).
    init(config: BridgeConfig, logger: BridgeLogger, serviceExtension: ExtensionFactory?, clock: StageClock,
         automaticConditionTimer: Bool = true) throws {
        self.config = config
        self.logger = logger
        self.serviceExtension = serviceExtension
        let hop = (name: DisplayRenderer.hopProperty, value: config.broker.clientID)
        self.hop = hop
        let intake = try Intake(config: config, logger: logger)
        self.intake = intake
        let state = config.state?.redis.map { RedisState(config: $0, client: config.broker.clientID, logger: logger) }
        self.state = state
        // Filter memory outlives pipelines (reloads) and, with the journal, the process (with
        // state.redis it is in Redis, shared by the replicas).
        let memory = FilterMemory(persistent: intake.journal != nil && state == nil, logger: logger)
        memoryWriter = state != nil ? nil : intake.journal.map { journal in
            FilterMemoryWriter.restore(memory, from: journal, logger: logger)
            return FilterMemoryWriter(journal: journal, memory: memory, logger: logger)
        }
        // Conditions outlive pipelines (reloads) and, with the journal, the process.
        let conditions = ConditionEngine(journal: intake.journal, logger: logger, shared: state?.conditions)
        // Digest windows outlive pipelines (reloads) and, with the journal, the process.
        let digests = DigestBook(journal: intake.journal, logger: logger, wall: clock.wall, automatic: automaticConditionTimer,
                                 shared: state?.digests)
        let attachments = try Self.attachmentService(for: config, existing: nil)
        attachmentSlot = AttachmentSlot(attachments)
        let people = PeopleDesk(config: config, journal: intake.journal, logger: logger, wall: clock.wall)
        self.people = people
        let pipeline = Pipeline(config: config, logger: logger, serviceExtension: serviceExtension, hop: hop, memory: memory,
                                clock: clock, conditions: conditions, attachments: attachments, lookups: lookups,
                                digests: digests, presence: people?.board, sharedMemory: state?.filters)
        conditions.restore(now: clock.wall())
        digests.restore(now: clock.wall())
        let stats = Stats(maxTopics: config.monitoring.maxTopics, version: Self.version,
                          startedAt: Date().timeIntervalSince1970)
        self.stats = stats
        let v5 = config.broker.protocolVersion == .v5
        let feed = DecisionFeed(includeText: config.monitoring.logLevel == .debug, traceTopic: config.monitoring.traceTopic,
                                traceProperties: v5 ? [hop] : [])
        self.feed = feed
        let status = StatusReporter(monitoring: config.monitoring, properties: v5 ? [hop] : [])
        self.status = status
        var options = MQTTClientOptions(config: config.broker, will: status.will,
                                        subscriptions: RouteSubscriptions.subscriptions(for: config))
        options.receiveMaximum = Intake.receiveMaximum
        options.readCoalescing = Self.intakeReadCoalescing
        let publisher = try Publisher(
            intake: options, output: Self.outputOptions(for: config.broker),
            tracking: PublishTracking(journal: intake.journal, limiter: intake.limiter, counters: intake.counters,
                                      delivered: { [stats] in stats.endToEndLatency(seconds: $0) }),
            logger: logger)
        self.publisher = publisher
        let monitor = Monitor(stats: stats, feed: feed, traceClient: publisher.intake)
        let output = publisher.output
        // With state.redis the deliveries are entries of Redis streams, this replica a consumer named by its client_id.
        let deliveries = state.map {
            RedisDeliveryStore(config: $0.config, consumer: config.broker.clientID, outputs: config.outputs.map(\.name),
                               health: $0.health, logger: logger)
        }
        let subscriptions = state.map { s in
            { @Sendable (output: String) -> any SubscriptionStore in
                RedisSubscriptionStore(key: s.config.prefix + "webpush:" + output, connection: RedisConnection(address: s.config.address),
                                       health: s.health)
            }
        }
        let outputs = try OutputSet(config: config, journal: intake.journal, deliveries: deliveries, subscriptions: subscriptions,
                                    renderer: pipeline.renderer,
                                    files: AttachmentFiles { [attachmentSlot] key in attachmentSlot.service?.store.file(forKey: key) },
                                    people: people, logger: logger, clock: clock.wall, automaticTimer: automaticConditionTimer) { m in
            do {
                try output.publish(topic: m.topic, payload: m.payload, qos: m.qos, retain: m.retain, userProperties: m.userProperties)
            } catch {
                logger.error("publish to '\(m.topic)' failed: \(error)")
            }
        }
        self.outputs = outputs
        httpAccess = config.monitoring.http.map { _ in
            HTTPAccess(auth: config.monitoring.httpAuth, secureCookie: config.monitoring.tls != nil, log: { logger.warning($0) })
        }
        var sources = StatsSources(stats: stats, filterMemory: memory, conditions: conditions, delivery: intake.counters,
                                   connections: [publisher.intake, publisher.output], outputs: outputs)
        sources.attachments = { [attachmentSlot] in attachmentSlot.service }
        sources.digests = digests
        sources.people = people
        sources.state = state?.health
        statsSources = sources
        flow = MessageFlow(pipeline: pipeline, intake: intake, publisher: publisher, events: monitor,
                           homeAssistant: HomeAssistantLink(config: config, broker: MQTTClientOptions(config: config.broker, will: nil, subscriptions: []),
                                                            version: Self.version, hop: hop, logger: logger),
                           outputs: outputs, partition: config.partition.flatMap(Partition.init), hop: hop, logger: logger,
                           ackTopic: config.conditions?.ackTopic, wall: clock.wall,
                           automaticConditionTimer: automaticConditionTimer, people: people)
    }

    /// The pipeline messages arriving now go through.
    var pipeline: Pipeline { flow.pipeline }

    /// The attachment service for `config`: `existing` reconfigured, a new one when `config`
    /// is the first with attachments, `nil` when there is none and none is needed.
    static func attachmentService(for config: BridgeConfig, existing: AttachmentService?) throws -> AttachmentService? {
        if let existing {
            existing.configure(config)
            return existing
        }
        guard AttachmentService.needed(by: config) else { return nil }
        let (directory, temporary) = AttachmentService.directory(for: config)
        return try AttachmentService(config: config, directory: directory, temporary: temporary)
    }

    /// Connects, processes messages until SIGTERM/SIGINT (or `requestStop()`, or the task is
    /// cancelled), then drains and stops.
    public func run() async throws {
        var server: MetricsServer?
        if let address = config.monitoring.http {
            let intake = publisher.intake, output = publisher.output
            do {
                server = try MetricsServer(
                    address: address,
                    metrics: { [weak self] in self.map { prometheusText($0.snapshot()) + $0.feed.prometheusText() } ?? "" },
                    ready: { [state] in intake.isConnected && intake.isSubscribed && output.isConnected && state?.health.problem == nil },
                    notReadyReason: { [state] in state?.health.problem },
                    dashboard: DashboardEndpoints(feed: feed, snapshot: { [weak self] in self?.snapshot().json() ?? [] },
                                                  totals: { [stats] in stats.snapshot(now: 0).totals },
                                                  alerts: { [conditions = flow.conditions] in
                                                      var bytes: [UInt8] = []
                                                      JSONValue.array(conditions.active.map(\.apiValue)).write(into: &bytes)
                                                      return bytes
                                                  },
                                                  people: { [people] in people.map { PeopleCounts.json($0.board.entries(at: $0.wall())) } ?? Array("{}".utf8) }),
                    webPush: outputs?.webPushEndpoints(logger: logger), tls: config.monitoring.tls, access: httpAccess,
                    attachments: AttachmentDownloads(slot: attachmentSlot))
                let scheme = config.monitoring.tls == nil ? "http" : "https"
                logger.info("monitoring on \(scheme)://\(address) (dashboard /, /api/stats, /api/events, /metrics, /healthz, /readyz, /attachments; \(config.monitoring.httpAuth.accessText))")
            } catch {
                logger.error("monitoring.http \(address): \(error)")
                throw error
            }
        }
        // Replaying (SQLite reads) and starting the connections block: not on the cooperative pool.
        await Worker.runBlocking { [self] in
            state?.start()
            for entry in intake.replay() { flow.process(entry.message, id: entry.id, seq: entry.seq) }
            intake.start()
            memoryWriter?.start()
            outputs?.start()
            // Loading the config (YAML nodes, template sources) and the replay leave freed heap
            // that glibc keeps mapped between live blocks; give it back before traffic starts
            // (1.2 MB with 1 000 routes): the peak RSS is then what the running bridge needs.
            _ = malloc_trim(0)
            // The intake connection's callbacks. Nothing published on it is tracked (status,
            // stats, QoS 0 displays): only the output connection's mids are (mids are per
            // connection). The network thread holds them until the connection stops: weak, so
            // that a bridge that goes away without a stop still lets its connections go.
            publisher.start(intake: MQTTClientHandlers(
                onMessage: { [weak flow] message in flow?.receive(message) },
                onConnection: { [weak self] event in self?.connectionChanged(event) }))
        }
        flow.startConditionTimer()
        // With state.redis every replica's engine knows every condition (its timer too), and
        // each ended digest window is claimed by one replica, which sends its summary.
        state?.startSync(conditions: flow.conditions, wall: flow.wall, changed: { [flow] in flow.conditionTimer.rearm() },
                         summaries: { [weak flow] due, now in flow?.sendDigests(due, now: now) })
        flow.startDigestTimer()
        logger.info("pushbridge \(Self.version) started: \(config.routes.count) route(s), broker \(config.broker.address)")
        status.start(through: publisher.intake) { [weak self] in self?.snapshot() }
        await stopRequested.wait()
        status.stop()
        await drain()
        server?.stop()
    }

    /// The counters now, with the other layers' counts (assembled by `StatsSources`).
    package func snapshot() -> StatsSnapshot {
        statsSources.snapshot()
    }

    private func connectionChanged(_ event: ConnectionEvent) {
        switch event {
        case .connected(let sessionPresent):
            flow.events.connection(up: true)
            intake.connected(sessionPresent: sessionPresent)
            logger.debug("session present: \(sessionPresent)")
            status.publishStatus(online: true, through: publisher.intake)
            flow.homeAssistant?.announce(publisher.intake)
        case .disconnected(let reason):
            flow.events.connection(up: false)
            logger.debug("disconnected: \(reason)")  // the client logged it with its retry delay
        case .connectFailed(let reason):
            flow.events.connection(up: false)
            logger.debug("connect failed: \(reason)")  // the client logged it with its retry delay
        }
    }
}
