/// Reads `people:` and a route's `audience:` and `when_nobody:` (docs/people.md), and checks
/// the names they use against the outputs and the people.
extension ConfigReader {
    /// The list of people; names unique, each with at least one output.
    func readPeople(_ node: YAMLNode) -> (people: [PersonConfig], outputRefs: [(String, YAMLScalar)]) {
        guard let items = sequence(node, key: "people") else { return ([], []) }
        var people: [PersonConfig] = []
        var refs: [(String, YAMLScalar)] = []
        var names: [String: YAMLMark] = [:]
        for item in items {
            guard let f = fields(item, key: "people", context: "a person", known: ConfigReference.keys(in: "people[]")) else { continue }
            guard let nameNode = required(f, "name", in: "a person"), let name = string(nameNode, key: "name") else { continue }
            guard !name.isEmpty else {
                error("'name' must not be empty", at: nameNode.mark)
                continue
            }
            if let first = names[name] {
                error("duplicate person '\(name)' (first at line \(first.line + 1)); give each person a unique 'name'", at: nameNode.mark)
                continue
            }
            names[name] = nameNode.mark
            var outputs: [String] = []
            if let n = f["outputs"], let list = strings(n, key: "outputs") {
                if list.isEmpty {
                    error("person '\(name)' has an empty 'outputs': name the outputs (from 'outputs:') that reach them", at: n.mark)
                }
                outputs = list.map(\.0)
                refs += list
            } else if f["outputs"] == nil {
                error("person '\(name)' needs 'outputs': the outputs (from 'outputs:') that reach them", at: f.mark)
            }
            var person = PersonConfig(name: name, outputs: outputs)
            if let n = f["presence"] { person.presence = readPresence(n, person: name) }
            people.append(person)
        }
        return (people, refs)
    }

    private func readPresence(_ node: YAMLNode, person: String) -> PresenceConfig? {
        guard let f = fields(node, key: "presence", context: "presence", known: ConfigReference.keys(in: "people[].presence")) else { return nil }
        var topic: String?
        if let n = required(f, "topic", in: "presence"), let v = string(n, key: "topic") {
            if let problem = TopicFilter.validate(v) {
                error("invalid presence topic '\(v)': \(problem)", at: n.mark)
            } else {
                topic = v
            }
        }
        let home = required(f, "home", in: "presence").flatMap { expression($0, key: "home") }
        var stale: Duration?
        if let n = f["stale_after"] { stale = duration(n, key: "stale_after", minimum: .seconds(1)) }
        guard let topic, let home else { return nil }
        return PresenceConfig(topic: topic, home: home, staleAfter: stale)
    }

    /// A route's `audience` and `when_nobody` (the names of a list are checked later).
    func readAudience(_ f: ConfigFields, into route: inout RouteConfig) {
        if let n = f["audience"] {
            if case .sequence = n {
                if let list = strings(n, key: "audience") {
                    if list.isEmpty { error("'audience' must name at least one person (or be everyone, home or away)", at: n.mark) }
                    route.audience = .people(list.map(\.0))
                    route.audienceRefs = list.map(\.1)
                }
            } else if let v = word(n, key: "audience", allowed: ["everyone", "home", "away"]) {
                route.audience = v == "home" ? .home : v == "away" ? .away : .everyone
            }
            route.audienceMark = n.mark
        }
        if let n = f["when_nobody"], let v: WhenNobody = word(n, key: "when_nobody") { route.whenNobody = v }
    }
}

extension ConfigAssembly {
    /// Every person's outputs exist; every name of an `audience` list is a person; an audience
    /// needs `people:`.
    func checkPeople(_ config: BridgeConfig, outputRefs: [(String, YAMLScalar)]) {
        let outputs = config.outputs.map(\.name)
        for (name, scalar) in outputRefs where !outputs.contains(name) {
            let hint = outputs.isEmpty ? "; there is no 'outputs:' section" : KeySuggestion.hint(for: name, in: outputs, noun: "outputs")
            reader.error("unknown output '\(name)' in a person's 'outputs'" + hint, at: scalar.mark)
        }
        let people = config.people.map(\.name)
        for route in config.routes {
            for scalar in route.audienceRefs where !people.contains(scalar.value) {
                let hint = people.isEmpty ? "; there is no 'people:' section" : KeySuggestion.hint(for: scalar.value, in: people, noun: "people")
                reader.error("route '\(route.name)': unknown person '\(scalar.value)' in 'audience'" + hint, at: scalar.mark)
            }
            if route.audience != .everyone, route.audienceRefs.isEmpty, people.isEmpty, let mark = route.audienceMark {
                reader.error("route '\(route.name)': 'audience' needs a 'people:' section (who is home or away)", at: mark)
            }
        }
    }
}
