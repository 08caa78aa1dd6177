import Foundation

/// Hot reload (SIGHUP): a new `bridge.yml` takes effect without a restart.
extension Bridge {
    /// What a reload did.
    public enum ReloadResult: Sendable, Equatable {
        /// The new routes, filters, extension and display settings are in effect.
        case applied(warnings: [String])
        /// The file had errors; the old config stays.
        case refused(errors: [String])
    }

    /// Re-reads `path` and applies it: routes, entitlements, `extension`, `display` and
    /// `dead_letter` change at once — subscriptions are added before old ones are removed,
    /// so no message between them is lost. Messages already in flight finish under the
    /// config they started with. `broker`, `journal`, `monitoring`, `homeassistant`,
    /// `outputs`, `people`, `conditions`, `partition` and `state` need a restart: a change there is logged as a
    /// warning and ignored; except `monitoring.http_auth` (its token file is read again), which
    /// the running HTTP server takes at once while `monitoring.http` is unchanged. The memory of `dedupe`,
    /// `rate_limit` and `changed` filters whose definition is unchanged is kept.
    ///
    /// Returns once the new subscriptions are acknowledged (see `apply(_:)`). Reloads must not
    /// overlap: `runUntilSignalled` runs one SIGHUP's reload after the other.
    @discardableResult
    public func reload(path: String, environment: [String: String] = ProcessInfo.processInfo.environment) async -> ReloadResult {
        switch ConfigLoader.load(path: path, environment: environment) {
        case .failure(let errors):
            let lines = errors.errors.map(\.description)
            for line in lines { logger.error(line) }
            logger.error("reload refused: \(lines.count) error(s) in \(path); still running the previous configuration")
            return .refused(errors: lines)
        case .success(let new):
            return await apply(new)
        }
    }

    /// Applies an already loaded config (see `reload(path:)`). Returns when the new
    /// subscriptions are acknowledged, the connection is down, or after 5 s; that wait
    /// blocks a thread of its own, never the cooperative pool.
    @discardableResult
    public func apply(_ new: BridgeConfig) async -> ReloadResult {
        var warnings: [String] = []
        let old = pipeline.config
        // Each compared as a whole value: any field changed is a change.
        // `monitoring.http_auth` alone is applied to the running HTTP server (its token re-read).
        var monitoringButAccess = new.monitoring
        monitoringButAccess.httpAuth = old.monitoring.httpAuth
        let needRestart = [("the broker section", old.broker != new.broker), ("the journal section", old.journal != new.journal),
                           ("the monitoring section", old.monitoring != monitoringButAccess),
                           ("the homeassistant section", old.homeAssistant != new.homeAssistant),
                           ("the outputs section", old.outputs != new.outputs),
                           ("the people section", old.describePeople() != new.describePeople()),
                           ("the conditions section", old.conditions != new.conditions),
                           ("the partition", old.partition != new.partition),
                           ("the state section", old.state != new.state)]
        warnings += needRestart.filter(\.1).map { "\($0.0) changed; restart pushbridge to use it" }
        warnings += new.warnings.map(\.description)
        if let running = old.partition, let shared = new.routes.first(where: { $0.share != nil }) {
            let line = "route '\(shared.name)' has 'share:' while this bridge runs with partition \(running.index) of \(running.count); 'share' and 'partition' cannot be combined (restart pushbridge to change the partition)"
            logger.error(line)
            logger.error("reload refused: still running the previous configuration")
            return .refused(errors: [line])
        }
        var effective = new
        effective.partition = old.partition
        effective.broker = old.broker
        effective.journal = old.journal
        effective.state = old.state
        effective.monitoring = old.monitoring
        if let httpAccess, new.monitoring.http == old.monitoring.http, new.monitoring.httpAuth != old.monitoring.httpAuth {
            httpAccess.update(new.monitoring.httpAuth)
            effective.monitoring.httpAuth = new.monitoring.httpAuth
            logger.info("monitoring.http_auth reloaded (\(new.monitoring.httpAuth.accessText)); the sessions of the previous one ended")
        }
        effective.homeAssistant = old.homeAssistant
        effective.conditions = old.conditions
        effective.outputs = old.outputs
        effective.people = old.people
        // Unchanged filters keep their memory; changed and removed ones forget theirs.
        let attachments: AttachmentService?
        do {
            let existing = attachmentSlot.service
            attachments = try Self.attachmentService(for: effective, existing: existing)
            attachmentSlot.service = attachments
        } catch {
            let line = "reload refused: the attachment store cannot be opened: \(error)"
            logger.error(line)
            return .refused(errors: [line])
        }
        let replacement = Pipeline(config: effective, logger: logger, serviceExtension: serviceExtension, hop: hop,
                                   memory: pipeline.filterMemory, conditions: pipeline.conditions, attachments: attachments,
                                   lookups: lookups, digests: pipeline.digests,
                                   presence: people?.board, sharedMemory: pipeline.sharedMemory)
        people?.routesChanged(effective.routes)
        let previous = flow.swapPipeline(replacement)
        let client = publisher.intake
        client.setSubscriptions(RouteSubscriptions.subscriptions(for: effective))
        // "reloaded" means the new filters are live: wait (bounded) for their SUBACKs.
        await Worker.runBlocking { _ = client.waitUntilSubscribed(timeout: .seconds(5)) }
        flow.homeAssistant?.routesChanged(to: effective, client: client)
        // Let what the old pipeline still holds finish before its stage (and child) stops.
        let linger = old.extension.timeLimit + old.extension.expireGrace + .seconds(1)
        DueTimer.after(linger) {
            previous.shutdown()
        }
        for w in warnings { logger.warning(w) }
        logger.info("reloaded: \(effective.routes.count) route(s), \(effective.extension.filters.count) filter(s)")
        return .applied(warnings: warnings)
    }
}
