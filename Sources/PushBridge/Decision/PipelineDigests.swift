import Foundation

/// A digest route's alerts (`digest:`): each delivered alert is offered to its window and
/// either goes on as decided or is held (suppressed, decided by `digest`); an ended window's
/// held alerts become one summary, a normal display message of the route.
extension Pipeline {
    /// `step` with its delivered alert offered to the digest (after the extension stage when it runs).
    func digested(_ step: Step, config: DigestConfig, context: MessageContext) -> Step {
        let key = config.key.render(in: context)
        if let shared = digests.shared {
            return sharedDigest(step, shared: shared, config: config, key: key, context: context)
        }
        switch step {
        case .decided(let d):
            return .decided(digested(d, config: config, key: key, topic: context.topic))
        case .waiting(var waiting):
            let before = waiting.finish
            let topic = context.topic
            waiting.finish = { [self] d in
                before?(&d)
                d = digested(d, config: config, key: key, topic: topic)
            }
            return .waiting(waiting)
        }
    }

    /// `d` as it stays, or held for the digest of `key`. Only a delivered alert (an event, or
    /// a condition's raise) is offered; critical ones and Live Activity pushes never are.
    func digested(_ d: Decision, config: DigestConfig, key: String, topic: String) -> Decision {
        guard let (route, alert) = digestOffer(d, topic: topic) else { return d }
        switch digests.admit(route: route, key: key, config: config, alert: alert, now: alert.at) {
        case .deliver:
            return d
        case .held(let window, _), .heldAgain(let window):
            return held(d, window: window, config: config, key: key)
        }
    }

    /// The route and the held row of `d` when it is offered to a digest (a delivered,
    /// non-critical alert that is no Live Activity push, nor a condition's repeat or step).
    private func digestOffer(_ d: Decision, topic: String) -> (String, DigestHeldRow)? {
        guard d.outcome == .delivered, let request = d.request, let route = d.route, request.liveActivity == nil,
              request.content.interruptionLevel != InterruptionLevel.critical.rawValue else { return nil }
        if let event = d.conditionEvent, event.kind != .raised { return nil }
        let content = request.content
        let title = content.title.flatMap { $0.isEmpty ? nil : $0 } ?? content.body ?? ""
        let alertKey = d.conditionEvent?.record.key ?? request.collapseID ?? topic
        return (route, DigestHeldRow(id: request.id, title: title, alertKey: alertKey, topic: topic, at: stage.clock.wall()))
    }

    /// `d` held for the window `window` of `key`: suppressed, decided by `digest`, nothing published.
    private func held(_ d: Decision, window: DigestWindowRow, config: DigestConfig, key: String) -> Decision {
        var held = d
        held.outcome = .suppressed
        held.decidedBy = "digest"
        held.rule = "held for the digest of '\(key)' (window ends \(Timestamp.iso8601(window.ends)), "
            + "after \(config.max) delivered one by one)"
        held.publish = []
        return held
    }

    /// `step` offered to the window the replicas share (`state.redis`), once it is decided:
    /// the answer comes from the shared memory, so the decision waits for it.
    private func sharedDigest(_ step: Step, shared: any SharedDigests, config: DigestConfig, key: String,
                              context: MessageContext) -> Step {
        let topic = context.topic
        let once = context.messageID + "/" + context.route
        let offer: @Sendable (Decision, @escaping @Sendable (Step) -> Void) -> Void = { [self] d, next in
            guard let (route, alert) = digestOffer(d, topic: topic) else { return next(.decided(d)) }
            shared.admit(route: route, key: key, window: config.window.seconds, max: config.max, alert: alert, once: once) { isHeld, window in
                if isHeld { self.digests.heldShared(route: route) }
                next(.decided(isHeld ? self.held(d, window: window, config: config, key: key) : d))
            }
        }
        let placeholder = NotificationRequest(id: context.messageID, pushType: .alert, priority: 10, collapseID: nil,
                                              content: NotificationContent())
        var waiting = Waiting(pipeline: self, request: placeholder, context: context, receivedAt: context.now)
        waiting.deferred = { next in
            switch step {
            case .decided(let d): offer(d, next)
            case .waiting(let inner): inner.start { d in offer(d, next) }
            }
        }
        return .waiting(waiting)
    }

    /// The summary of an ended window: a delivered decision of its route with the digest's
    /// title and body (templates that see `digest.*`), collapse id `<route>-digest`, its
    /// display message rendered as the route's alerts are. `nil` when the route is gone.
    func digestSummary(_ summary: DigestSummary, now: Double) -> Decision? {
        guard let entry = table.entry(named: summary.route) else { return nil }
        let route = entry.route
        var context = MessageContext(topic: summary.held.last?.topic ?? route.topic, payload: .null, raw: "", route: route.name,
                                     qos: route.qos, pushType: .alert, priority: route.effectivePriority, now: now)
        context.digest = summary.value
        var content = NotificationContent()
        content.title = route.digest?.title.map { $0.render(in: context) } ?? summary.defaultTitle
        content.body = route.digest?.body.map { $0.render(in: context) } ?? summary.defaultBody
        // The route's constant sound, thread and category (its templates may read a payload the summary has not).
        for field in [ContentField.sound, .threadID, .category] {
            if let t = route.alert[field], !t.hasHoles, !t.source.isEmpty { content[text: field] = t.source }
        }
        let request = NotificationRequest(id: summary.id, pushType: .alert, priority: route.effectivePriority,
                                          collapseID: Withdrawal.collapseID(route: route.name, key: "digest"), content: content)
        context.content = content
        let display = renderer.displayMessage(request, context: context, modified: false, receivedAt: now)
        let window = "\(Timestamp.iso8601(summary.window.opened)) to \(Timestamp.iso8601(summary.window.ends))"
        var d = Decision(outcome: .delivered, route: route.name,
                         rule: "digest of '\(summary.window.key)': \(summary.held.count) held alert(s) of the window \(window) in one notification")
        d.request = request
        d.publish = [display]
        return d
    }
}
