/// Assembles the sections of the root mapping into a `BridgeConfig` and runs the
/// cross-section checks: unique route names, filter route references, loops.
struct ConfigAssembly {
    let reader: ConfigReader
    let path: String

    func build(_ root: YAMLNode) -> BridgeConfig {
        var config = BridgeConfig()
        config.sourcePath = path
        guard case .mapping = root else {
            reader.error("the file must be a mapping of sections (broker, routes, extension, …), got \(reader.show(root))", at: root.mark)
            return config
        }
        guard let f = reader.fields(root, key: "bridge.yml", context: "bridge.yml", known: ConfigLoader.topLevelKeys) else {
            return config
        }
        let directory = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : ""
        if let n = f["broker"] { config.broker = reader.readBroker(n, baseDirectory: directory) }
        if let n = f["entitlements"], let list = reader.strings(n, key: "entitlements") {
            config.entitlements = list.map(\.0)
        }
        var topicMarks: [YAMLMark] = []
        if let n = f["routes"] {
            (config.routes, topicMarks) = readRoutes(n)
        } else {
            reader.error("'routes' is missing: at least one route is needed", at: f.mark)
        }
        var filterRoutes: [[(String, YAMLScalar)]] = []
        if let n = f["extension"] { (config.extension, filterRoutes) = reader.readExtension(n) }
        if let n = f["display"] { config.display = reader.readDisplay(n) }
        if let n = f["dead_letter"] { config.deadLetter = reader.readDeadLetter(n) }
        if let n = f["journal"] { config.journal = reader.readJournal(n) }
        if let n = f["state"] { config.state = reader.readState(n, baseDirectory: directory, hasJournal: config.journal != nil) }
        if let n = f["monitoring"] { config.monitoring = reader.readMonitoring(n) }
        if let n = f["homeassistant"] { config.homeAssistant = reader.readHomeAssistant(n) }
        var outputRoutes: [(String, YAMLScalar)] = []
        if let n = f["outputs"] { (config.outputs, outputRoutes) = reader.readOutputs(n, baseDirectory: directory, monitoringHTTP: config.monitoring.http != nil) }
        if let n = f["conditions"] { config.conditions = reader.readConditions(n) }
        if let n = f["attachments"] { config.attachments = reader.readAttachmentsSettings(n) }
        var personOutputs: [(String, YAMLScalar)] = []
        if let n = f["people"] { (config.people, personOutputs) = reader.readPeople(n) }
        checkPeople(config, outputRefs: personOutputs)
        checkConditions(config)
        reader.checkDigests(config)
        checkDependencies(config)
        checkFilterRoutes(filterRoutes, routes: config.routes)
        checkRouteNames(outputRoutes, routes: config.routes, in: "an output's 'routes'")
        reader.checkStepOutputs(config.routes, outputs: config.outputs)
        checkLoops(config, topicMarks: topicMarks)
        if config.broker.protocolVersion != .v5 { checkOverlaps(config, topicMarks: topicMarks) }
        if let n = f["homeassistant"] { checkHomeAssistant(config, at: n.mark, routeMarks: topicMarks) }
        ScaleOutCheck(reader: reader).apply(f, to: &config)
        config.warnings = reader.warnings
        return config
    }

    private func readRoutes(_ node: YAMLNode) -> ([RouteConfig], [YAMLMark]) {
        guard let items = reader.sequence(node, key: "routes") else { return ([], []) }
        if items.isEmpty {
            reader.error("'routes' is empty: at least one route is needed", at: node.mark)
        }
        var routes: [RouteConfig] = []
        var marks: [YAMLMark] = []
        var names: [String: YAMLMark] = [:]
        for item in items {
            guard let (route, nameMark, topicMark) = reader.readRoute(item) else { continue }
            if let first = names[route.name] {
                reader.error("duplicate route name '\(route.name)' (first at line \(first.line + 1)); give each route a unique 'name'",
                             at: nameMark)
                continue
            }
            names[route.name] = nameMark
            routes.append(route)
            marks.append(topicMark)
        }
        return (routes, marks)
    }

    private func checkFilterRoutes(_ refs: [[(String, YAMLScalar)]], routes: [RouteConfig]) {
        checkRouteNames(Array(refs.joined()), routes: routes, in: "filter 'routes'")
    }

    private func checkRouteNames(_ refs: [(String, YAMLScalar)], routes: [RouteConfig], in context: String) {
        let known = routes.map(\.name)
        for (name, scalar) in refs where !known.contains(name) {
            reader.error("unknown route '\(name)' in \(context)" + KeySuggestion.hint(for: name, in: known, noun: "routes"),
                         at: scalar.mark)
        }
    }

    /// Condition routes without a journal forget their conditions at a restart; without
    /// `conditions:` nobody can acknowledge them.
    private func checkConditions(_ config: BridgeConfig) {
        for route in config.routes where route.condition != nil {
            let mark = route.conditionMark ?? YAMLMark(line: 0, column: 0)
            if let live = route.condition?.liveActivity, config.display.format != .apns {
                reader.error("route '\(route.name)': 'live_activity' needs 'display.format: apns' (the display format is \(config.display.format.rawValue))",
                             at: live.mark ?? mark)
            } else if let live = route.condition?.liveActivity, live.attributesType == nil {
                reader.warn("route '\(route.name)': 'live_activity' has no 'attributes_type': its start push cannot start a Live Activity by itself "
                            + "(push-to-start needs aps.attributes-type and aps.attributes), only one the app started; set it to the app's ActivityAttributes type",
                            at: live.mark ?? mark)
            }
            if config.journal == nil {
                reader.warn("route '\(route.name)' has a condition but there is no 'journal': its conditions live in memory and a restart forgets them (and raises them again)",
                            at: mark)
            }
            if config.conditions == nil {
                reader.warn("route '\(route.name)' has a condition but there is no 'conditions: {ack_topic: …}': its alerts cannot be acknowledged",
                            at: mark)
            }
        }
    }

    /// `depends_on` names another condition route, and the routes it links form no cycle.
    private func checkDependencies(_ config: BridgeConfig) {
        let conditionRoutes = config.routes.filter { $0.condition != nil }.map(\.name)
        var parents: [String: String] = [:]
        for route in config.routes {
            guard let c = route.condition, let parent = c.dependsOn else { continue }
            let mark = c.dependsOnMark ?? route.conditionMark ?? YAMLMark(line: 0, column: 0)
            let others = conditionRoutes.filter { $0 != route.name }
            let hint = others.isEmpty ? "; no other route has a 'condition'" : KeySuggestion.hint(for: parent, in: others, noun: "condition routes")
            if parent == route.name {
                reader.error("route '\(route.name)': 'depends_on' names the route itself; name the condition route that is its root cause", at: mark)
            } else if let other = config.routes.first(where: { $0.name == parent }) {
                if other.condition == nil {
                    reader.error("route '\(route.name)': 'depends_on' names route '\(parent)', which has no 'condition' (only a condition route can be depended on)" + hint,
                                 at: mark)
                } else {
                    parents[route.name] = parent
                }
            } else {
                reader.error("route '\(route.name)': unknown route '\(parent)' in 'depends_on'" + hint, at: mark)
            }
        }
        // Each cycle once, at the first of its routes in the file.
        for cycle in NameCycles.find(in: config.routes.map(\.name), next: parents) {
            let route = config.routes.first { $0.name == cycle[0] }
            reader.error("'depends_on' forms a cycle: " + cycle.joined(separator: " → ") + "; a root cause cannot depend on what it causes",
                         at: route?.condition?.dependsOnMark ?? route?.conditionMark ?? YAMLMark(line: 0, column: 0))
        }
    }

    /// MQTT 3.1.1: two route filters that overlap without one covering the other: the broker
    /// delivers a message on a topic both match once per subscription, so the bridge decides it
    /// twice. (A covered filter is not subscribed: `TopicFilterCover`; MQTT 5 tells the copies
    /// apart by Subscription Identifier.)
    private func checkOverlaps(_ config: BridgeConfig, topicMarks: [YAMLMark]) {
        var seen: [(filter: String, parsed: TopicFilterCover.Parsed, route: String)] = []
        for (route, mark) in zip(config.routes, topicMarks) where TopicFilter.validate(route.topic) == nil {
            let filter = route.subscriptionFilter
            let parsed = TopicFilterCover.Parsed(filter)
            for (other, otherParsed, name) in seen where parsed.partlyOverlaps(otherParsed) {
                reader.warn("route '\(route.name)' (\(filter)) and route '\(name)' (\(other)) overlap and neither covers the other: "
                            + "the broker delivers a message on a topic both match once per subscription, and the bridge decides it twice. "
                            + "Use protocol: 5 (the copies are then told apart), make one filter cover the other (it is then the only one subscribed) or make them disjoint",
                            at: mark)
                break
            }
            if !seen.contains(where: { $0.filter == filter }) { seen.append((filter, parsed, route.name)) }
        }
    }

    /// A route whose filter could match the bridge's own output is an error.
    private func checkLoops(_ config: BridgeConfig, topicMarks: [YAMLMark]) {
        var outputs: [(what: String, template: String)] = [("display messages", config.display.topic.source)]
        if let dead = config.deadLetter { outputs.append(("dead-letter messages", dead.topic.source)) }
        if let status = config.monitoring.statusTopic { outputs.append(("status messages", status)) }
        if let stats = config.monitoring.statsTopic { outputs.append(("stats messages", stats)) }
        if let trace = config.monitoring.traceTopic { outputs.append(("trace messages", trace)) }
        outputs += config.homeAssistant?.publishedTopicPatterns(clientID: config.broker.clientID) ?? []
        for (route, mark) in zip(config.routes, topicMarks) where TopicFilter.validate(route.topic) == nil {
            for output in outputs where LoopCheck.templateMayMatch(filter: route.topic, template: output.template) {
                reader.error("route '\(route.name)' (topic '\(route.topic)') would receive the bridge's own \(output.what) on '\(output.template)'; narrow the filter",
                             at: mark)
            }
        }
    }
}
