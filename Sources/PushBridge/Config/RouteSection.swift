/// Reads one entry of `routes:` (docs/configuration.md, "routes").
extension ConfigReader {
    static let routeKeys = ConfigReference.keys(in: "routes[]")
    static let alertKeys = ConfigReference.keys(in: "routes[].alert")

    /// The route, with the marks of its name (or topic) and its topic, for later checks.
    func readRoute(_ node: YAMLNode) -> (route: RouteConfig, nameMark: YAMLMark, topicMark: YAMLMark)? {
        guard let f = fields(node, key: "routes", context: "route", known: Self.routeKeys) else { return nil }
        guard let topicNode = f["topic"] else {
            error("route needs 'topic' (an MQTT topic filter)", at: f.mark)
            return nil
        }
        let topic = string(topicNode, key: "topic") ?? ""
        if case .scalar = topicNode {
            if topic.hasPrefix("$share/") {
                error("'topic' must not start with '$share/'; use 'share: <group>' instead", at: topicNode.mark)
            } else if let problem = TopicFilter.validate(topic) {
                error("invalid topic filter '\(topic)': \(problem)", at: topicNode.mark)
            }
        }
        var name = topic
        var nameMark = topicNode.mark
        if let n = f["name"], let v = string(n, key: "name") {
            if v.isEmpty { error("'name' must not be empty", at: n.mark) } else { name = v; nameMark = n.mark }
        }
        var route = RouteConfig(name: name, topic: topic)
        route.location = "\(path):\(f.mark.line + 1):\(f.mark.column + 1)"
        route.mutableContent = true  // the documented default of `mutable_content`
        if let n = f["qos"], let v = choice(n, key: "qos", allowed: [0, 1, 2]) { route.qos = v }
        if let n = f["share"], let v = string(n, key: "share") {
            if v.isEmpty || v.contains(where: { "/+#\u{0}".contains($0) }) {
                error("'share' must be a group name without '/', '+' or '#', got \(show(n))", at: n.mark)
            } else {
                route.share = v
            }
        }
        if let n = f["retained"], let v: RetainedPolicy = word(n, key: "retained") { route.retained = v }
        if let n = f["input"], let v: InputMode = word(n, key: "input") { route.input = v }
        if let n = f["push_type"],
           let v = word(n, key: "push_type", allowed: PushType.allCases.map(\.rawValue) + ["none"]) {
            route.pushType = PushType(rawValue: v)
            route.pushTypeExplicit = true
        }
        if let n = f["priority"], let v = choice(n, key: "priority", allowed: [10, 5, 1]) {
            if v == 10 && route.pushType == .background {
                error("'priority' 10 is not allowed with push_type background (APNs BadPriority); use 5", at: n.mark)
            } else {
                route.priority = v
            }
        }
        if let n = f["mutable_content"], let v = bool(n, key: "mutable_content") { route.mutableContent = v }
        if let n = f["continue"], let v = bool(n, key: "continue") { route.continueMatching = v }
        if let n = f["collapse_id"], let t = template(n, key: "collapse_id") {
            if !t.hasHoles, t.source.utf8.count > 64 {
                error("'collapse_id' must be at most 64 bytes (APNs BadCollapseId), got \(t.source.utf8.count)", at: n.mark)
            } else {
                route.collapseID = t
            }
        }
        if let n = f["expiration"] { route.expiration = readExpiration(n) }
        if let n = f["alert"] {
            route.alert = readAlert(n)
        }
        if route.input != .apns, f["alert"].map({ alertNode in
            fields(quietly: alertNode)?.has("body") ?? false
        }) != true {
            route.alert[.body] = try? compiler.template("{{ raw }}")
        }
        if let n = f["user_info"] {
            route.userInfo = template(n, key: "user_info")
        } else if !f.isExplicitNull("user_info") {
            route.userInfo = try? compiler.template("{{ payload }}")
        }
        if let n = f["attachments"] { route.attachments = readAttachmentSpecs(n, route: name) }
        if let n = f["lookup"] { route.lookups = readLookups(n) }
        if let n = f["condition"] {
            route.condition = readCondition(n, route: name)
            route.conditionMark = f.keyMarks["condition"]
        }
        if let n = f["digest"] { route.digest = readDigest(n) }
        return (route, nameMark, topicNode.mark)
    }

    private func readExpiration(_ node: YAMLNode) -> ExpirationSpec? {
        if case .scalar(let s) = node, s.value.contains("{{") {
            return template(node, key: "expiration").map(ExpirationSpec.template)
        }
        return duration(node, key: "expiration").map(ExpirationSpec.after)
    }

    private func readAlert(_ node: YAMLNode) -> AlertTemplates {
        var alert = AlertTemplates()
        guard let f = fields(node, key: "alert", context: "alert", known: Self.alertKeys) else { return alert }
        func read(_ key: String) -> Template? {
            guard let n = f[key], let t = template(n, key: key) else { return nil }
            if !t.hasHoles, case .scalar(let s) = n { checkConstant(key: key, value: s.value, node: n) }
            return t
        }
        for field in ContentField.allCases {
            if field == .sound, let n = f["sound"], case .mapping = n {
                readSoundMapping(n, into: &alert)
            } else {
                alert[field] = read(field.key)
            }
        }
        return alert
    }

    /// `sound: {name: default, critical: true, volume: 1.0}` (Apple's critical-alert sound).
    private func readSoundMapping(_ node: YAMLNode, into alert: inout AlertTemplates) {
        guard let f = fields(node, key: "sound", context: "sound", known: ConfigReference.keys(in: "routes[].alert.sound")) else { return }
        if let n = f["name"] {
            alert[.sound] = template(n, key: "name")
        } else {
            alert[.sound] = try? Template.parse("default")
        }
        if let n = f["critical"], let v = bool(n, key: "critical") { alert.soundCritical = v }
        if let n = f["volume"] {
            if case .scalar(let s) = n, !s.style.isQuoted, let v = JSONValue(numberText: s.value)?.arithmeticValue, v >= 0, v <= 1 {
                alert.soundVolume = v
            } else {
                error("'volume' must be a number from 0 to 1, got \(show(n))", at: n.mark)
            }
        }
    }

    /// Checks a constant (hole-free) content field value: level, score, badge.
    func checkConstant(key: String, value: String, node: YAMLNode) {
        switch ContentField(key: key)?.kind {
        case .level?:
            if InterruptionLevel(rawValue: value) == nil {
                _ = word(node, key: key, allowed: InterruptionLevel.allCases.map(\.rawValue))
            }
        case .score?:
            if let score = JSONValue(numberText: value)?.numberValue, (0...1).contains(score) { return }
            error("'\(key)' must be a number from 0 to 1, got \(show(node))", at: node.mark)
        case .integer?:
            guard case .int? = JSONValue(numberText: value) else {
                return error("'\(key)' must be an integer, got \(show(node))", at: node.mark)
            }
        case .text?, nil:
            break
        }
    }

    /// The mapping's keys without reporting anything (for default decisions).
    func fields(quietly node: YAMLNode) -> ConfigFields? {
        guard case .mapping(let pairs, let mark) = node else { return nil }
        var f = ConfigFields(mark: mark)
        for pair in pairs {
            if case .scalar(let k) = pair.key { f.add(key: k.value, at: k.mark, value: pair.value) }
        }
        return f
    }
}
