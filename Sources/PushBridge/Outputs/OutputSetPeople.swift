import Foundation

/// The outputs and the people (docs/people.md): which outputs an audience reaches, and the
/// delivery of held alerts once someone is there to tell.
extension OutputSet {
    /// How many held alerts of one route are delivered one by one; the rest become one summary.
    static let heldOneByOne = 3

    /// The deliveries of `item`: each output whose `routes` include its route and that
    /// `audience` reaches, once per target (a Web Push subscription of a person outside the
    /// audience is left out), and each output the item names (`extraOutputs`: an escalation
    /// step's, whatever its `routes` and the audience); with `only`, that output alone (a
    /// fallback). `peopleOnly`: only what belongs to a person (a held alert's release: the
    /// outputs of nobody had it when it was held). An output's budget may hold or drop the
    /// item instead; an output with a fallback arms the timer for it.
    func deliveryRows(for item: OutputItem, audience: AudienceChoice, peopleOnly: Bool = false, only: OutputWorker? = nil,
                      now: Double = Date().timeIntervalSince1970) -> ([(output: String, key: String, target: String)], [OutputWorker]) {
        var rows: [(output: String, key: String, target: String)] = []
        var owners: [OutputWorker] = []
        for w in workers {
            let named = item.extraOutputs.contains(w.config.name)
            if let only {
                guard only === w else { continue }
            } else if !(w.config.routes?.contains(item.route) ?? true) && !named {
                continue
            }
            let targets: [String]
            if only != nil || named || (audience == .everyone && !peopleOnly) {
                targets = w.kind.targets(for: item)
            } else {
                let owned = people?.owners[w.config.name] ?? []
                if let push = w.kind as? WebPushOutput {
                    targets = push.subscriptions().filter { s in
                        audience.reaches(subscriptionOf: s.person, owners: owned) && !(peopleOnly && owned.isEmpty && s.person == nil)
                    }.map(\.endpoint)
                } else if !(peopleOnly && owned.isEmpty), audience.reaches(owners: owned) {
                    targets = w.kind.targets(for: item)
                } else {
                    continue
                }
            }
            guard !targets.isEmpty else { continue }
            if let budget = w.budget, !budget.admit(item, deliveries: targets.count, now: now) {
                if let due = budget.nextDue { arm(at: due) }
                continue
            }
            for target in targets {
                rows.append((w.config.name, item.key, target))
                owners.append(w)
            }
            if w.config.fallback != nil { arm(at: now + w.config.fallbackAfter.seconds) }
        }
        return (rows, owners)
    }

    /// Delivers the held alerts whose route's audience is someone now: with 3 or fewer, each
    /// one by one; with more, the 3 newest one by one and one summary of the rest. With a
    /// journal the deliveries are stored and the held alerts removed in one transaction.
    func releaseHeld() {
        people?.serialized { releaseHeldNow() }
    }

    private func releaseHeldNow() {
        guard let people else { return }
        for release in people.releasable() {
            let items = Self.releaseItems(release, now: people.wall())
            let now = clock()
            let planned = items.map { deliveryRows(for: $0, audience: release.audience, peopleOnly: true, now: now) }
            if let journal, store?.traits.shared == true {
                // The deliveries go to the shared store, then the held alerts leave the journal
                // (a crash between the two: they are released again, the store adds nothing twice).
                for (item, plan) in zip(items, planned) { hand(plan.0, owners: plan.1, item: item, created: now) }
                do { _ = try journal.releaseHeld(release.alerts.map(\.id).filter { $0 > 0 }, deliveries: [], created: now) } catch {
                    logger.error("outputs: cannot remove the released alerts of '\(release.route)' from the journal: \(error)")
                }
                people.released(release)
                logger.info("route '\(release.route)': \(release.alerts.count) held alert(s) delivered")
                continue
            }
            if let journal {
                do {
                    let added = try journal.releaseHeld(release.alerts.map(\.id).filter { $0 > 0 },
                                                        deliveries: zip(items, planned).map { ($0.1.0, $0.0.json, $0.0.files) },
                                                        created: now)
                    var counts: [ObjectIdentifier: Int] = [:]
                    for (plan, flags) in zip(planned, added) {
                        for (owner, new) in zip(plan.1, flags) where new { counts[ObjectIdentifier(owner), default: 0] += 1 }
                    }
                    for w in workers { if let n = counts[ObjectIdentifier(w)] { w.stored(n) } }
                    people.released(release)
                    logger.info("route '\(release.route)': \(release.alerts.count) held alert(s) delivered")
                    continue
                } catch {
                    logger.error("outputs: cannot hand on the held alerts of '\(release.route)': \(error); they stay held")
                    continue
                }
            }
            for (item, plan) in zip(items, planned) {
                for (row, owner) in zip(plan.0, plan.1) {
                    owner.enqueue(PendingDelivery(row: nil, key: row.key, target: row.target, item: item.json, files: item.files, created: now))
                }
            }
            people.released(release)
        }
    }

    /// The items a release sends: the held alerts themselves, or the 3 newest and a summary
    /// of the older ones (title "N more: <route>", body their titles, collapse id `<route>-digest`).
    static func releaseItems(_ release: HeldRelease, now: Double) -> [OutputItem] {
        let alerts = release.alerts
        let single = { (a: HeldAlertRow) in OutputItem(alertID: a.key, route: a.route, displayJSON: a.item, files: a.files) }
        guard alerts.count > heldOneByOne else { return alerts.map(single) }
        let older = alerts.dropLast(heldOneByOne)
        let titles = older.map { OutputMessage(json: $0.item)?.title ?? "" }.filter { !$0.isEmpty }
        var request = NotificationRequest(id: NotificationRequest.newID(), pushType: .alert, priority: 10,
                                          collapseID: "\(release.route)-digest")
        request.content.title = "\(older.count) more: \(release.route)"
        request.content.body = titles.joined(separator: ", ")
        let source = older.last.flatMap { OutputMessage(json: $0.item)?.sourceTopic } ?? ""
        let summary = OutputItem(alertID: request.id, route: release.route,
                                 displayJSON: DisplayRenderer.displayJSON(request, source: source, route: release.route,
                                                                          modified: false, receivedAt: now))
        return [summary] + alerts.suffix(heldOneByOne).map(single)
    }
}
