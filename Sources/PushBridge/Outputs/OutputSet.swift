import Foundation
import Synchronization

/// The outputs of a running bridge (docs/outputs.md): one worker per `outputs:` entry, the
/// hand-off from the message path, the dead letters of refused deliveries, the drain.
final class OutputSet: Sendable {
    let workers: [OutputWorker]
    let journal: Journal?
    /// Where the deliveries wait until accepted (`nil`: in memory): the journal, or Redis streams.
    let store: (any OutputDeliveryStore)?
    private let renderer: DisplayRenderer
    let logger: BridgeLogger
    /// The people, when `people:` is configured: the routes' audiences choose among the outputs.
    let people: PeopleDesk?
    /// The wall clock fallbacks and budgets read (a fake one in tests).
    let clock: @Sendable () -> Double
    /// Armed for the next fallback or budget summary due (`tick()`); `nil` when not automatic.
    let timer: DueTimer?
    /// The due time the timer is armed for.
    let armed = Mutex<Double?>(nil)
    /// Held while `tick()` runs: the start's tick and the timer's never take the same late
    /// deliveries twice.
    let ticking = Mutex<Void>(())

    /// The `webpush` output, when there is one (its subscriptions are served by the monitoring server).
    let webPush: WebPushOutput?

    /// The workers for `config.outputs` (`nil` when there are none), their deliveries in
    /// `deliveries` (by default the journal's table; in memory without a journal), a `webpush`
    /// output's subscriptions in the store `subscriptions` makes for its name (by default the
    /// journal's table, or memory); `files` finds the stored
    /// attachments a kind sends as bytes; `publish` sends a dead-letter message (the bridge's
    /// output connection). Throws when a `webpush` output's VAPID key or subscription table
    /// cannot be used. `clock` is the wall clock of fallbacks and budgets; with
    /// `automaticTimer: false` nothing is armed for them (a test moves its clock and calls `tick()`).
    init?(config: BridgeConfig, journal: Journal?, deliveries: (any OutputDeliveryStore)? = nil,
          subscriptions: (@Sendable (String) -> any SubscriptionStore)? = nil, renderer: DisplayRenderer, files: AttachmentFiles = .none,
          people: PeopleDesk? = nil, logger: BridgeLogger, clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 },
          automaticTimer: Bool = true, publish: @escaping @Sendable (OutboundMessage) -> Void) throws(OutputStartError) {
        guard !config.outputs.isEmpty else { return nil }
        self.journal = journal
        let store = deliveries ?? journal.map { JournalDeliveryStore(journal: $0) }
        self.store = store
        self.people = people
        self.renderer = renderer
        self.logger = logger
        self.clock = clock
        timer = automaticTimer && config.outputs.contains { $0.fallback != nil || $0.budget != nil }
            ? DueTimer(queue: DispatchQueue(label: "pushbridge.outputs")) : nil
        var workers: [OutputWorker] = []
        var webPush: WebPushOutput?
        for output in config.outputs {
            let kind: any OutputKind
            switch output.kind {
            case .ntfy(let c): kind = NtfyOutput(name: output.name, config: c, files: files, logger: logger)
            case .webhook(let c): kind = WebhookOutput(config: c)
            case .webpush(let c):
                let w = try WebPushOutput.start(name: output.name, config: c, journal: journal, shared: subscriptions?(output.name),
                                                  logger: logger)
                webPush = w
                kind = w
            }
            let reject: @Sendable (OutputRejection) -> Void = { [renderer, logger] r in
                let message = OutputMessage(json: r.item)
                let receivedAt = message?.value["received_at"]?.stringValue.flatMap(Self.parseTimestamp) ?? Date().timeIntervalSince1970
                guard let m = renderer.outputRejectionMessage(output: r.output, status: r.status, detail: r.detail, item: r.item,
                                                              sourceTopic: message?.sourceTopic ?? "", route: message?.route,
                                                              receivedAt: receivedAt)
                else { return }
                publish(m)
                logger.debug("output '\(r.output)': dead letter to '\(m.topic)'")
            }
            guard let worker = OutputWorker(config: output, kind: kind, store: store, journal: journal, logger: logger, now: clock(), reject: reject) else {
                let why = Curl.loadError.map { "libcurl could not be loaded (\($0); install Debian's libcurl4)" }
                    ?? "libcurl could not be initialised"
                logger.error("output '\(output.name)': \(why); it is off")
                continue
            }
            workers.append(worker)
        }
        self.workers = workers
        self.webPush = webPush
        logger.debug("outputs through \(Curl.version)" + (store.map { ", deliveries in the \($0.backend)" } ?? ""))
    }

    /// Starts the workers (each first sends what the journal kept).
    func start() {
        for w in workers { w.start() }
        timer?.start { [weak self] in self?.tick() }
        tick()
    }

    /// A delivered alert: handed to the outputs of its route (never waits for them).
    func delivered(_ decision: Decision, sourceTopic: String, receivedAt: Double) {
        // A cleared condition's withdraw goes out whatever became of its all-clear alert.
        if let w = decision.withdrawal {
            offer(OutputItem(withdrawal: w))
        }
        guard decision.outcome == .delivered, let request = decision.request, let route = decision.route,
              decision.extraOutputs.isEmpty ? workers.contains(where: { $0.config.routes?.contains(route) ?? true }) : true
        else { return }  // no output takes the route's alerts: nothing to render, hold or count
        let json: [UInt8]
        // With a withdraw before it (on_clear: notify) the alert's display message is the last one.
        if renderer.display.format == .json, let display = decision.withdrawal == nil ? decision.publish.first : decision.publish.last {
            json = display.payload
        } else {
            json = DisplayRenderer.displayJSON(request, source: sourceTopic, route: route, modified: decision.modified,
                                               receivedAt: receivedAt)
        }
        var item = OutputItem(alertID: request.id, route: route, displayJSON: json,
                              files: request.content.attachments.compactMap { AttachmentStore.key(ofFile: $0.file) })
        item.extraOutputs = decision.extraOutputs
        let audience = people?.choice(for: route) ?? .everyone
        if audience == .hold {
            people?.hold(route: route, key: item.key, item: item.json, files: item.files)
            // Outputs of nobody (and those an escalation step names) still get it now.
            offer(item, audience: .people([]))
            // Someone arrived while it was being held: it goes out now.
            if people?.choice(for: route) != .hold { releaseHeld() }
        } else {
            offer(item, audience: audience)
        }
    }

    /// Hands `item` to every output whose `routes` include its route and that `audience`
    /// reaches, and to those it names itself (`extraOutputs`, whatever the audience); with
    /// `only`, to that output alone (a fallback). A budget may hold or drop it instead. With
    /// a store the deliveries are stored first (`hand`); the workers are then woken.
    func offer(_ item: OutputItem, audience: AudienceChoice = .everyone, only: OutputWorker? = nil) {
        let now = clock()
        let (rows, owners) = deliveryRows(for: item, audience: audience, only: only, now: now)
        guard !rows.isEmpty else { return }
        hand(rows, owners: owners, item: item, created: now)
    }

    /// Delivers what can be delivered until `deadline`; what is left stays in the journal.
    func drain(until deadline: ContinuousClock.Instant) {
        timer?.cancel()
        for w in workers { w.stop(by: deadline) }
        for w in workers { w.waitUntilStopped(deadline: deadline + .seconds(2)) }
    }

    /// Each output's counters now, in config order.
    func snapshots() -> [OutputStatsSnapshot] { workers.map { $0.stats.snapshot() } }

    private static func parseTimestamp(_ text: String) -> Double? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.date(from: text)?.timeIntervalSince1970
    }
}
