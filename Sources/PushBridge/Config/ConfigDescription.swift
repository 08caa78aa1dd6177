extension RouteConfig {
    /// The filter actually subscribed to: `$share/<group>/<topic>` when `share` is set.
    var subscriptionFilter: String {
        share.map { "$share/\($0)/\(topic)" } ?? topic
    }
}

extension RouteConfig {
    /// `push_type` as `check` prints it.
    var apnsPushTypeText: String {
        guard input == .apns else { return pushType?.rawValue ?? "none" }
        return pushTypeExplicit ? "\(pushType?.rawValue ?? "none") (unless apns-push-type)" : "from apns-push-type (absent: legacy)"
    }

    /// Where each APNs header of an `input: apns` route comes from (a user property, else the route's key or default).
    var apnsHeaderSources: String {
        func t(_ x: Template?) -> String? { x.map { "\"\($0.source)\"" } }
        var parts: [String] = []
        parts.append("apns-push-type=property, else " + (pushTypeExplicit ? (pushType?.rawValue ?? "none") + " (route)" : "absent (legacy)"))
        parts.append("apns-priority=property, else " + (priority.map { "\($0) (route)" } ?? "10, 5 for background (default)"))
        parts.append("apns-collapse-id=property, else " + (t(collapseID).map { "\($0) (route)" } ?? "none"))
        let expiry: String
        switch expiration {
        case .after(let d)?: expiry = "\(d.text) after arrival (route)"
        case .template(let x)?: expiry = "\"\(x.source)\" (route)"
        case nil: expiry = "none"
        }
        parts.append("apns-expiration=property, else " + expiry)
        parts.append("apns-id=property, else a UUID fixed at arrival")
        return parts.joined(separator: "; ")
    }
}

extension BridgeConfig {
    /// A readable summary of the resolved configuration, printed by `pushbridge check`.
    ///
    /// Shows every section with defaults filled in; the password is shown as `***`.
    package func describe() -> String {
        var out: [String] = []
        func d(_ x: Duration) -> String { x.text }
        func q(_ t: Template?) -> String { t.map { "\"\($0.source)\"" } ?? "-" }

        let b = broker
        out.append("broker: \(b.address) client_id=\(b.clientID) protocol=\(b.protocolVersion.rawValue)")
        out.append("  keepalive=\(d(b.keepalive)) clean_start=\(b.cleanStart) session_expiry=\(d(b.sessionExpiry)) reconnect=\(d(b.reconnectMin))..\(d(b.reconnectMax))")
        var auth = "  username=\(b.username ?? "-") password=\(b.password == nil ? "-" : "***")"
        if let file = b.passwordFile { auth += " (from \(file))" }
        out.append(auth)
        if let tls = b.tls {
            out.append("  tls: ca_file=\(tls.caFile ?? "-") cert_file=\(tls.certFile ?? "-") key_file=\(tls.keyFile ?? "-") insecure=\(tls.insecure)")
        } else {
            out.append("  tls: off")
        }
        out.append("entitlements: " + (entitlements.isEmpty ? "none" : entitlements.joined(separator: ", "))
                   + (filteringGranted ? " (filtering granted)" : ""))

        out.append("routes (\(routes.count), first match wins):")
        for (index, r) in routes.enumerated() {
            out.append("  \(index + 1). \(r.name): \(r.subscriptionFilter) qos=\(r.qos) retained=\(r.retained.rawValue) input=\(r.input.rawValue) push_type=\(r.apnsPushTypeText) priority=\(r.effectivePriority) mutable_content=\(r.input == .apns ? "from aps.mutable-content" : String(r.mutableContent))")
            if r.input == .apns { out.append("     headers: " + r.apnsHeaderSources) }
            var extras: [String] = []
            if let c = r.collapseID { extras.append("collapse_id=\(q(c))") }
            switch r.expiration {
            case .after(let x)?: extras.append("expiration=\(d(x))")
            case .template(let t)?: extras.append("expiration=\(q(t))")
            case nil: break
            }
            extras.append("user_info=\(q(r.userInfo))")
            out.append("     " + extras.joined(separator: " "))
            let set = ContentField.allCases.compactMap { f in r.alert[f].map { "\(f.key)=\(q($0))" } }
            if r.input == .apns {
                out.append("     alert: from the APNs body")
            } else {
                out.append("     alert: " + (set.isEmpty ? "none" : set.joined(separator: " ")))
            }
            if let c = r.condition { out.append("     condition: " + c.life) }
            if let g = r.digest { out.append("     digest: " + g.summary) }
            for a in r.attachments {
                var line = "     attachment \(a.identifier): "
                switch a.source {
                case .topic(let t, let filter):
                    line += "newest bytes on \(q(t)) (subscribed as \(filter)), at most \(d(a.maxAge)) old or arriving within the wait"
                case .url(let t):
                    line += "fetched from \(q(t))"
                    let names = a.headers.map(\.name).filter { $0 != "Authorization" || a.tokenFile == nil }
                    if !names.isEmpty { line += " headers: " + names.joined(separator: ", ") }
                    if let file = a.tokenFile { line += " token: *** (from \(file))" }
                }
                out.append(line)
            }
            for l in r.lookups {
                out.append("     lookup \(l.name): the newest payload on \(q(l.template)) (subscribed as \(l.filter)), null when none")
            }
            if r.continueMatching { out.append("     continue: the next matching route decides its messages too") }
            if let line = r.audienceText { out.append("     " + line) }
        }

        let e = `extension`
        out.append("extension: time_limit=\(d(e.timeLimit)) expire_grace=\(d(e.expireGrace)) concurrency=\(e.concurrency) on_failure=\(e.onFailure.rawValue)")
        if let command = e.command { out.append("  command: " + command.joined(separator: " ")) }
        out.append("  filters (\(e.filters.count), in order):")
        for (index, f) in e.filters.enumerated() {
            var line = "    \(index + 1). \(f.name): \(f.action.summary)"
            if let w = f.when { line += " when \"\(w.source)\"" }
            line += " routes=" + (f.routes?.joined(separator: ",") ?? "all")
            if f.hasMemory { line += " max_keys=\(f.maxKeys)" }
            out.append(line)
        }

        out.append("display: topic=\(q(display.topic)) qos=\(display.qos) retain=\(display.retain) format=\(display.format.rawValue)")
        out.append("dead_letter: " + (deadLetter.map { "topic=\(q($0.topic)) qos=\($0.qos)" } ?? "off"))
        if routes.contains(where: { !$0.attachments.isEmpty }) {
            let x = attachments
            out.append("attachments: wait=\(d(x.wait)) max_bytes image=\(ByteCount.text(x.maxImage)) audio=\(ByteCount.text(x.maxAudio)) video=\(ByteCount.text(x.maxVideo))")
            out.append("  store: " + (journal.map { "\($0.path)/attachments" } ?? "a private temporary folder (no journal)")
                       + " keep=\(d(x.keep)) total_bytes=\(ByteCount.text(x.totalBytes))")
            let base = x.publicURL ?? monitoring.http.map { "\(monitoring.tls == nil ? "http" : "https")://\($0)" }
            out.append("  served at: " + (base.map { "\($0)/attachments/<token>/<identifier>.<ext>" } ?? "nowhere (set monitoring.http or attachments.public_url for URLs)"))
        }
        out.append("journal: " + (journal.map { "path=\($0.path) fsync=\($0.fsync.rawValue) max_messages=\($0.maxMessages)" } ?? "off"))
        out.append("state: " + (state?.redis.map { "redis " + $0.described } ?? (journal == nil ? "memory (no journal)" : "journal")))
        let m = monitoring
        out.append("monitoring: status_topic=\(m.statusTopic ?? "off") stats_topic=\(m.statsTopic ?? "off") interval=\(d(m.interval)) max_topics=\(m.maxTopics)")
        out.append("  http=\(m.http?.description ?? "off") trace_topic=\(m.traceTopic ?? "off") log_level=\(m.logLevel.rawValue) log_format=\(m.logFormat.rawValue)")
        switch m.httpAuth {
        case .token(let file, _)?: out.append("  http_auth: token_file=\(file)")   // the file, never the token
        case .open?: out.append("  http_auth: none (open to everyone who can reach http)")
        case nil: break
        }
        if let tls = m.tls { out.append("  tls: cert_file=\(tls.certFile) key_file=\(tls.keyFile)") }
        out.append("partition: " + (partition.map {
            "index=\($0.index) count=\($0.count) (this replica handles the topics whose FNV-1a 32-bit hash modulo \($0.count) is \($0.index))"
        } ?? "off"))
        if routes.contains(where: { $0.condition != nil }) || conditions != nil {
            out.append("conditions: ack_topic=" + (conditions?.ackTopic ?? "off (alerts cannot be acknowledged)"))
        }
        out += describeHomeAssistant()
        out += describeOutputs()
        out += describePeople()
        return out.joined(separator: "\n") + "\n"
    }
}
