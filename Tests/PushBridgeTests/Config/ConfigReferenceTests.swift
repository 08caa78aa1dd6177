import Foundation
import Testing
@testable import PushBridge

/// The key table against the reader: every key in `ConfigReference` loads with its example,
/// is read and type-checked by the reader (a wrong value is an error on its line), and every
/// mapping rejects a key the table lacks. The reader's key lists come from the table, so
/// together these leave no key that one of them has and the other lacks.
@Suite struct ConfigReferenceTests {
    /// Every config here names a route `doorbell`, so filters' `routes:` examples resolve.
    static let skeleton: JSONValue = .object(["routes": .array([.object(["name": .string("doorbell"),
                                                                           "topic": .string("home/+/doorbell")])])])
    static let environment = ["REPLICA": "0", "HOSTNAME": "host", "MQTT_PASSWORD": "secret"]
    /// Keys that only load together with another one (the reader demands the pair).
    static let companions: [String: [String]] = [
        "broker.tls.cert_file": ["broker.tls.key_file"],
        "state": ["journal"],
        "state.redis": ["journal"],
        "state.redis.url": ["journal"],
        "state.redis.password_file": ["journal"],
        "state.redis.prefix": ["journal"],
        "state.redis.claim_after": ["journal"],
        "broker.tls.key_file": ["broker.tls.cert_file"],
        "monitoring.http_auth": ["monitoring.http"],
        "monitoring.http_auth.token_file": ["monitoring.http"],
        "monitoring.tls": ["monitoring.http"],
        "monitoring.tls.cert_file": ["monitoring.http"],
        "monitoring.tls.key_file": ["monitoring.http"],
        "outputs[].webpush": ["monitoring.http"],
        "outputs[].webpush.vapid_key_file": ["monitoring.http"],
        "outputs[].webpush.subject": ["monitoring.http"],
        "outputs[].webpush.subscribe_token_file": ["monitoring.http"],
        "routes[].attachments[].identifier": ["routes[].attachments[].from_topic"],
        "routes[].attachments[].max_age": ["routes[].attachments[].from_topic"],
        "routes[].attachments[].headers": ["routes[].attachments[].url"],
        "routes[].attachments[].token_file": ["routes[].attachments[].url"],
        "outputs[].fallback_after": ["outputs[].fallback"],
        "routes[].condition.live_activity": ["display.format"],
        "routes[].condition.live_activity.content_state": ["display.format"],
        "routes[].condition.live_activity.stale_after": ["display.format"],
        "routes[].condition.live_activity.dismiss_after": ["display.format"],
        "routes[].condition.live_activity.attributes_type": ["display.format"],
        "routes[].condition.live_activity.attributes": ["display.format", "routes[].condition.live_activity.attributes_type"],
        "routes[].condition.depends_key": ["routes[].condition.depends_on"],
        "people": ["outputs"],
        "people[].name": ["outputs"],
        "people[].outputs": ["outputs"],
        "people[].presence": ["outputs"],
        "people[].presence.topic": ["outputs"],
        "people[].presence.home": ["outputs"],
        "people[].presence.stale_after": ["outputs"],
        "routes[].audience": ["outputs", "people"],
        "routes[].when_nobody": ["outputs", "people"],
    ]
    /// The condition route `depends_on`'s example names, added as a second route where it is needed.
    static let parentRoute: JSONValue = .object([
        "name": .string("zigbee2mqtt-bridge-offline"), "topic": .string("zigbee2mqtt/bridge/state"),
        "condition": .object(["key": .string("{{ topic }}"), "active": .string("payload.state == \"offline\"")])])

    /// `a` with `b`'s members added; a list's first item merged with `b`'s first item.
    static func merge(_ a: JSONValue, _ b: JSONValue) -> JSONValue {
        switch (a, b) {
        case (.object(var x), .object(let y)):
            for (k, v) in y { x[k] = x[k].map { merge($0, v) } ?? v }
            return .object(x)
        case (.array(let x), .array(let y)) where !x.isEmpty && !y.isEmpty:
            return .array([merge(x[0], y[0])] + x.dropFirst() + y.dropFirst())
        default:
            return b
        }
    }

    /// The mapping paths from the root down to `path`'s parent (`routes[]`, `routes[].alert`).
    static func ancestors(_ key: ConfigKey) -> [String] {
        var out: [String] = []
        var p = key.parent
        while !p.isEmpty {
            out.insert(p, at: 0)
            p = ConfigReference.all.first { $0.childPath == p }?.parent ?? ""
        }
        return out
    }

    /// A document that sets `key` to `value`, with what the file needs around it: a route,
    /// the required keys of every mapping on the way, a filter's action.
    static func document(_ key: ConfigKey, value: JSONValue) -> JSONValue {
        var doc = skeleton
        for mapping in ancestors(key) {
            for sibling in ConfigReference.entries(in: mapping) where sibling.required && sibling.path != key.path {
                doc = merge(doc, ConfigReference.tree(path: sibling.path, value: sibling.example))
            }
            // A filter needs one action; a key under an action brings its own.
            let inFilter = key.path.dropFirst("extension.filters[].".count).split(separator: ".").first.map(String.init) ?? ""
            if mapping == "extension.filters[]", !ConfigReader.filterActions.contains(inFilter) {
                doc = merge(doc, ConfigReference.tree(path: "extension.filters[].suppress", value: .string("false")))
            }
            // An output needs one kind; a key under a kind brings its own.
            let inOutput = key.path.dropFirst("outputs[].".count).split(separator: ".").first.map(String.init) ?? ""
            if mapping == "outputs[]", !ConfigReader.outputKinds.contains(inOutput) {
                doc = merge(doc, ConfigReference.tree(path: "outputs[].webhook.url", value: .string("https://example.com/hook")))
            }
        }
        for path in companions[key.path] ?? [] {
            let other = ConfigReference.key(path)!
            doc = merge(doc, ConfigReference.tree(path: other.path, value: other.example))
        }
        doc = merge(doc, ConfigReference.tree(path: key.path, value: value))
        if key.path.hasPrefix("routes[].condition.depends_"), case .object(var root) = doc, case .array(let routes)? = root["routes"] {
            root["routes"] = .array(routes + [parentRoute])
            doc = .object(root)
        }
        // A fallback or an escalation step names another output: the one the examples name.
        if key.path.hasPrefix("outputs[].fallback") || key.path == "routes[].condition.escalate[].outputs", case .object(var root) = doc {
            let hook: JSONValue = .object(["name": .string("sms-hook"), "webhook": .object(["url": .string("https://example.com/sms")])])
            if case .array(let outputs)? = root["outputs"] { root["outputs"] = .array(outputs + [hook]) } else { root["outputs"] = .array([hook]) }
            doc = .object(root)
        }
        return doc
    }

    /// Loads `yaml` from a directory that holds the example password file.
    static func load(_ yaml: String) throws -> [ConfigError] {
        let dir = try makeTempDirectory()
        try "secret\n".write(toFile: dir + "/mqtt_password", atomically: true, encoding: .utf8)
        try "tk_example\n".write(toFile: dir + "/ntfy_token", atomically: true, encoding: .utf8)
        try "redis_example_password\n".write(toFile: dir + "/redis_password", atomically: true, encoding: .utf8)
        try "frigate_example_token\n".write(toFile: dir + "/frigate_token", atomically: true, encoding: .utf8)
        try "wp_example_token_0123456789\n".write(toFile: dir + "/webpush_token", atomically: true, encoding: .utf8)
        try "http_example_token_0123456789\n".write(toFile: dir + "/http_token", atomically: true, encoding: .utf8)
        // monitoring.tls reads both files when the config loads (their PEM labels are checked).
        try "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n".write(toFile: dir + "/tls.crt", atomically: true, encoding: .utf8)
        try "-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----\n".write(toFile: dir + "/tls.key", atomically: true, encoding: .utf8)
        switch ConfigLoader.load(text: yaml, path: dir + "/bridge.yml", environment: environment) {
        case .success: return []
        case .failure(let errors): return errors.errors
        }
    }

    @Test(arguments: ConfigReference.all.map(\.path))
    func everyExampleLoads(path: String) throws {
        let key = try #require(ConfigReference.key(path))
        let yaml = ConfigReference.blockYAML(Self.document(key, value: key.example)).joined(separator: "\n") + "\n"
        let errors = try Self.load(yaml)
        #expect(errors.isEmpty, "\(path) with its example:\n\(yaml)\(errors.map(\.description).joined(separator: "\n"))")
        if errors.isEmpty { ConfigCollector.record(yaml, valid: true, name: "example-" + path) }
    }

    @Test(arguments: ConfigReference.all.map(\.path))
    func everyKeyIsReadAndTypeChecked(path: String) throws {
        let key = try #require(ConfigReference.key(path))
        let wrong: JSONValue
        let shown: String
        switch key.type {
        case .strings, .listOfMappings, .stringMap: (wrong, shown) = (.string("oops"), "oops")
        // A key that takes a list or a template (`set.attachments`): a mapping is neither.
        case .either(let types) where types.contains(where: { if case .strings = $0 { true } else { false } }):
            (wrong, shown) = (.object([:]), "{}")
        default: (wrong, shown) = (.array([.int(1), .int(2)]), "[1, 2]")
        }
        let lines = ConfigReference.blockYAML(Self.document(key, value: wrong))
        let yaml = lines.joined(separator: "\n") + "\n"
        let line = try #require(lines.firstIndex { $0.hasSuffix(" " + key.name + ": " + shown) || $0.hasSuffix("- " + key.name + ": " + shown)
            || $0 == key.name + ": " + shown }) + 1
        let errors = try Self.load(yaml)
        #expect(errors.contains { $0.line == line }, "\(path) = \(shown) gave no error on line \(line):\n\(yaml)\(errors)")
        ConfigCollector.record(yaml, valid: false, name: "wrong-" + path)
    }

    /// Every mapping the table describes, and the root.
    static let mappings: [String] = [""] + ConfigReference.all.filter(\.type.hasKeys).map(\.childPath)

    @Test(arguments: mappings)
    func everyMappingRejectsAKeyTheTableLacks(mapping: String) throws {
        let probe = ConfigKey(mapping.isEmpty ? "zz_unknown" : mapping + ".zz_unknown", .integer(min: 0, max: nil),
                              example: .int(1), "probe")
        let yaml = ConfigReference.blockYAML(Self.document(probe, value: .int(1))).joined(separator: "\n") + "\n"
        let errors = try Self.load(yaml)
        #expect(errors.contains { $0.message.hasPrefix("unknown key 'zz_unknown'") }, "\(mapping):\n\(yaml)\(errors)")
        ConfigCollector.record(yaml, valid: false, name: "unknown-" + (mapping.isEmpty ? "root" : mapping))
    }

    @Test func requiredKeysAreRequired() throws {
        for key in ConfigReference.all where key.required && key.parent != "" {
            // The parent's example without this key.
            let parent = try #require(ConfigReference.all.first { $0.childPath == key.parent })
            guard case .object(var members) = parent.example else { continue }
            members.removeValue(forKey: key.name)
            let yaml = ConfigReference.blockYAML(Self.document(parent, value: .object(members))).joined(separator: "\n") + "\n"
            let errors = try Self.load(yaml)
            #expect(errors.contains { $0.message.contains("'\(key.name)'") }, "\(key.path) left out:\n\(yaml)\(errors)")
        }
    }

    @Test func contentFieldsAreTheAlertAndSetKeys() {
        #expect(ConfigReference.keys(in: "routes[].alert") == ContentField.allCases.map(\.key))
        let set = ContentField.allCases.flatMap { $0 == .sound ? ["sound", "sound_critical", "sound_volume"] : [$0.key] }
            + ["user_info", "attachments"]
        #expect(ConfigReference.keys(in: "extension.filters[].set") == set)
        #expect(ConfigReader.filterActions == ["suppress", "set", "dedupe", "rate_limit", "changed", "quiet_hours"])
        // Every action key of the reference is one the reader can read (no default kind).
        #expect(ConfigReader.filterActions == FilterAction.Kind.allCases.map(\.rawValue))
        #expect(Set(ConfigReference.all.map(\.path)).count == ConfigReference.all.count, "a path is listed twice")
    }

    @Test func everyEnumeratedDefaultIsAllowed() {
        for key in ConfigReference.all {
            guard let value = key.defaultValue else { continue }
            switch (key.type, value) {
            case (.words(let w), .string(let s)): #expect(w.contains(s), "\(key.path)")
            case (.integers(let n), .int(let i)): #expect(n.contains(Int(i)), "\(key.path)")
            default: break
            }
        }
    }

    @Test func helpFindsKeysAsPeopleWriteThem() {
        #expect(ConfigReference.lookup("extension.filters.changed")?.path == "extension.filters[].changed")
        #expect(ConfigReference.lookup("routes[0].qos")?.path == "routes[].qos")
        #expect(ConfigReference.lookup("routes[].alert.sound.critical")?.path == "routes[].alert.sound.critical")
        #expect(ConfigReference.lookup("extension.filters.chnged") == nil)
        #expect(ConfigReference.suggestion(for: "extension.filters.chnged") == "extension.filters.changed")
        #expect(ConfigReference.suggestion(for: "brokr.host") == "broker.host")
        let help = ConfigReference.help(ConfigReference.lookup("extension.filters.changed.deadband")!)
        #expect(help.contains("type:    number (at least 0)"))
        #expect(help.contains("deadband: 0.5"))
    }
}
