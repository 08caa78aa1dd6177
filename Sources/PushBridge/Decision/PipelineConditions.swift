import Foundation

/// A condition route's messages and the notifications its conditions make: every one goes
/// through the same rules and extension stage as any request (`decideRequest`).
extension Pipeline {
    /// A message on a condition route: raise, clear, or nothing.
    func decideCondition(_ message: InboundMessage, entry: RouteTable.Entry, condition: ConditionConfig,
                         mapped: RequestMapper.Mapped, id: String, now: Double) -> Step {
        let route = entry.route.name
        if case .failure(let rejection) = mapped.request {
            return .decided(rejected(rejection, message: message, context: mapped.context, route: route))
        }
        let handsOn = entry.route.continueMatching
        guard let value = condition.active.evaluateStrictly(in: mapped.context) else {
            return .decided(Decision(outcome: .notDisplayed, route: route,
                                     rule: "condition: 'active' cannot be evaluated (a path the payload does not have, or not JSON): nothing changes",
                                     passedOver: handsOn))
        }
        let key = condition.key.render(in: mapped.context)
        let active = Operators.isTruthy(value)
        // Condition times are read on the stage's clock (the conditions' timer reads it too).
        let dependsKey = condition.dependsKey?.render(in: mapped.context)
        let wall = stage.clock.wall()
        if let shared = conditions.shared, case .success(let request) = mapped.request {
            // Decided in the shared memory (state.redis), once per message and route; then as below.
            let proposed = conditions.proposal(route: route, key: key, message: message, alertID: NotificationRequest.newID(),
                                               now: wall, dependsKey: dependsKey)
            let engine = conditions
            var waiting = Waiting(pipeline: self, request: request, context: mapped.context, receivedAt: message.receivedAt)
            waiting.deferred = { [self] next in
                shared.observe(route: route, key: key, active: active, proposed: proposed, once: id + "/" + route) { answer in
                    let t = engine.adopt(answer, route: route, key: key, message: message, now: wall, dependsKey: dependsKey)
                    next(self.transitioned(t, key: key, condition: condition, message: message, entry: entry, id: id, now: now))
                }
            }
            return .waiting(waiting)
        }
        let t = conditions.observe(route: route, key: key, active: active, message: message,
                                   alertID: NotificationRequest.newID(), now: wall, dependsKey: dependsKey)
        return transitioned(t, key: key, condition: condition, message: message, entry: entry, id: id, now: now)
    }

    /// What a condition route's message does once its transition is known.
    private func transitioned(_ t: ConditionEngine.Transition, key: String, condition: ConditionConfig, message: InboundMessage,
                              entry: RouteTable.Entry, id: String, now: Double) -> Step {
        let route = entry.route.name
        let handsOn = entry.route.continueMatching
        switch t {
        case .notRaised:
            return .decided(Decision(outcome: .notDisplayed, route: route,
                                     rule: "condition '\(key)' is not raised: nothing to clear", passedOver: handsOn))
        case .alreadyRaised(let r) where condition.liveActivity != nil:
            return notification(r, state: r.state, number: r.repeats, message: message, entry: entry, id: id, now: now,
                                live: .update, onlyIfChanged: true)
        case .alreadyRaised(let r):
            return .decided(Decision(outcome: .notDisplayed, route: route,
                                     rule: "condition '\(key)' is already raised (alert \(r.alertID)): state, not an event",
                                     passedOver: handsOn))
        case .raised(let r):
            return notification(r, state: .raised, number: 0, message: message, entry: entry, id: id, now: now,
                                live: condition.liveActivity == nil ? nil : .start)
        case .cleared(let r):
            return cleared(r, condition: condition, message: message, entry: entry, id: id, now: now)
        case .superseded(let r):
            return .decided(Decision(outcome: .notDisplayed, route: route,
                                     rule: "condition '\(key)' superseded (alert \(r.alertID)): raised silently while '\(r.supersededBy ?? "?")'"
                                         + (r.parentKey.map { " '\($0)'" } ?? "") + " is raised (depends_on)"))
        case .clearedSilently(let r):
            return .decided(Decision(outcome: .notDisplayed, route: route,
                                     rule: "condition '\(key)' cleared while superseded (alert \(r.alertID)): nothing was told, nothing to withdraw"))
        }
    }

    /// The notification for due `work` (a repeat or an escalation step); `nil` when its route is gone.
    package func conditionNotification(_ work: ConditionEngine.Work, now: Double) -> Step? {
        let r = work.record
        let message = InboundMessage(topic: r.topic, payload: r.payload, qos: r.qos, retain: false,
                                     userProperties: r.properties, receivedAt: now)
        guard let entry = table.entry(named: r.route), entry.route.condition != nil,
              TopicFilter.matches(filter: entry.route.topic, topic: r.topic) else { return nil }
        switch work.kind {
        case .repeat(let n):
            return notification(r, state: .repeated, number: n, message: message, entry: entry,
                                id: NotificationRequest.newID(), now: now, live: live(entry))
        case .step(let n):
            let step = entry.route.condition?.escalate[n - 1]
            return notification(r, state: .escalated, number: r.repeats, message: message, entry: entry,
                                id: NotificationRequest.newID(), now: now, displayTopic: step?.displayTopic,
                                outputs: step?.outputs ?? [], live: live(entry))
        case .announcement(let parent):
            let announcement = announcementText(work.dependents, parent: parent, entry: entry, now: now)
            return notification(r, state: .raised, number: 0, message: message, entry: entry, id: NotificationRequest.newID(),
                                now: now, announcement: announcement)
        }
    }

    /// Names at most this many conditions in an announcement's body (then "and N more").
    static let announcementNames = 20

    /// An announcement's title and body: how many of `entry`'s conditions are still active
    /// after `parent` cleared, and each one's title as its own raise would have said it
    /// (its key when the route renders no title).
    private func announcementText(_ records: [ConditionRecord], parent: String, entry: RouteTable.Entry,
                                  now: Double) -> (title: String, body: String, rule: String) {
        let names = records.prefix(Self.announcementNames).map { r -> String in
            let m = InboundMessage(topic: r.topic, payload: r.payload, qos: r.qos, retain: false,
                                   userProperties: r.properties, receivedAt: now)
            let mapped = mapper.map(m, entry: entry, id: r.alertID, now: now, condition: r.value(state: .raised, repeat: 0),
                                    madeByCondition: true)
            if case .success(let request) = mapped.request, let title = request.content.title, !title.isEmpty { return title }
            return r.key
        }
        let more = records.count - names.count
        let title = "\(entry.route.name): \(records.count) still active after \(parent) cleared"
        let body = names.joined(separator: ", ") + (more > 0 ? " and \(more) more" : "")
        return (title, body, "condition announcement (\(records.count) superseded by '\(parent)' still active after it cleared)")
    }

    /// A Live Activity route's repeats and steps are updates (sent even when the content state is the same).
    private func live(_ entry: RouteTable.Entry) -> LiveActivityUpdate.Event? {
        entry.route.condition?.liveActivity == nil ? nil : .update
    }

    /// The one function every withdrawal passes through on its way to the publisher: the
    /// messages it becomes (today the display topic's withdraw message; outputs hook in here).
    func withdrawMessages(_ w: Withdrawal) -> [OutboundMessage] {
        [renderer.withdrawMessage(w)]
    }

    /// A condition's notification in `state`: mapped from its message with `condition.*`,
    /// its collapse id and the escalation steps taken so far, then rules 3 to 6.
    private func notification(_ r: ConditionRecord, state: ConditionState, number: Int, message: InboundMessage,
                              entry: RouteTable.Entry, id: String, now: Double, displayTopic: Template? = nil, outputs: [String] = [],
                              clearAlert: [(field: String, value: Template)]? = nil,
                              before: [OutboundMessage] = [], withdrawal: Withdrawal? = nil,
                              announcement: (title: String, body: String, rule: String)? = nil,
                              live: LiveActivityUpdate.Event? = nil, onlyIfChanged: Bool = false) -> Step {
        let route = entry.route.name
        let mapped = mapper.map(message, entry: entry, id: id, now: now, condition: r.value(state: state, repeat: number),
                                madeByCondition: state != .raised)
        var context = mapped.context
        var request: NotificationRequest
        switch mapped.request {
        case .failure(let rejection):
            var d = rejected(rejection, message: message, context: context, route: route)
            d.publish = before + d.publish
            d.conditionEvent = ConditionEvent(kind: ConditionEventKind(state), record: r, collapseID: collapseID(r, context: context),
                                              withdrawal: withdrawal)
            return .decided(d)
        case .success(let built):
            request = built
        }
        request.collapseID = collapseID(r, context: context)
        for step in (entry.route.condition?.escalate ?? []).prefix(r.step) where !step.set.isEmpty {
            context.content = request.content
            request.content = ContentSetter.apply(step.set, to: context).0
        }
        if let clearAlert {
            context.content = request.content
            request.content = ContentSetter.apply(clearAlert, to: context).0
        }
        if let announcement {
            // It stands for several conditions: its own collapse id, not one of theirs.
            request.content.title = announcement.title
            request.content.body = announcement.body
            request.collapseID = Withdrawal.collapseID(route: route, key: "announcement")
        }
        context.content = request.content
        if let live, let config = entry.route.condition?.liveActivity {
            switch liveActivity(config, event: live, record: r, context: context, onlyIfChanged: onlyIfChanged) {
            case .failure(let rejection):
                return .decided(rejected(rejection, message: message, context: context, route: route))
            case .success(nil):
                return .decided(Decision(outcome: .notDisplayed, route: route,
                                         rule: "condition '\(r.key)': the Live Activity's content_state is unchanged: no update"))
            case .success(let update?):
                request.liveActivity = update
                request.pushType = .liveactivity
            }
        }
        let topic = displayTopic.map { $0.render(in: context) }
        var told = r
        if state == .repeated { told.repeats = number }  // the repeat this notification is
        let event = ConditionEvent(kind: ConditionEventKind(state), record: told, collapseID: request.collapseID ?? "",
                                   withdrawal: withdrawal)
        let finish: @Sendable (inout Decision) -> Void = { d in
            if let topic, d.outcome == .delivered, !d.publish.isEmpty { d.publish[0].topic = topic }
            d.extraOutputs = outputs
            d.publish = before + d.publish
            // A Live Activity update is no condition event, nor an announcement (it stands for several).
            if !onlyIfChanged && announcement == nil { d.conditionEvent = event }
            d.rule = (announcement.map { $0.rule + ": " } ?? "condition \(state.rawValue) (alert \(r.alertID)): ") + d.rule
        }
        switch decideRequest(request, context: context, route: route, receivedAt: message.receivedAt, now: now) {
        case .decided(var d):
            finish(&d)
            return .decided(d)
        case .waiting(var waiting):
            waiting.finish = finish
            return .waiting(waiting)
        }
    }

    /// A clear: the withdraw message (`withdraw`, `notify`), then the all-clear (`notify`).
    private func cleared(_ r: ConditionRecord, condition: ConditionConfig, message: InboundMessage,
                         entry: RouteTable.Entry, id: String, now: Double) -> Step {
        let route = entry.route.name
        let probe = mapper.map(message, entry: entry, id: id, now: now, condition: r.value(state: .cleared))
        let w = Withdrawal(alertID: r.alertID, collapseID: collapseID(r, context: probe.context),
                           sourceTopic: message.topic, route: route)
        let event = ConditionEvent(kind: .cleared, record: r, collapseID: w.collapseID,
                                   withdrawal: condition.onClear == .none ? nil : w)
        if condition.liveActivity != nil {
            return notification(r, state: .cleared, number: r.repeats, message: message, entry: entry, id: id, now: now,
                                withdrawal: w, live: .end)
        }
        switch condition.onClear {
        case .none, .withdraw:
            var d = Decision(outcome: .notDisplayed, route: route,
                             rule: condition.onClear == .none ? "condition '\(r.key)' cleared (on_clear: none)"
                                 : "condition '\(r.key)' cleared: withdraw published")
            if condition.onClear == .withdraw {
                d.publish = withdrawMessages(w)
            }
            d.conditionEvent = event
            return .decided(d)
        case .notify:
            let defaultClear = [(field: "title", value: try! Template.parse("{{ content.title }}: cleared"))]
            return notification(r, state: .cleared, number: r.repeats, message: message, entry: entry, id: id, now: now,
                                clearAlert: condition.clearAlert ?? defaultClear, before: withdrawMessages(w), withdrawal: w)
        }
    }

    /// The condition's one collapse id: the route's when it renders one, else `<route>-<key>` made safe.
    func collapseID(_ r: ConditionRecord, context: MessageContext) -> String {
        if let t = table.entry(named: r.route)?.route.collapseID {
            let s = t.render(in: context)
            if !s.isEmpty, s.utf8.count <= 64 { return s }
        }
        return Withdrawal.collapseID(route: r.route, key: r.key)
    }
}
