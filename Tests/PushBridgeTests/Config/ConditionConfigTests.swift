import Testing
@testable import PushBridge

/// `condition:` on a route and the top-level `conditions:` section.
@Suite struct ConditionConfigTests {
    static func yaml(_ condition: String, extra: String = "journal: {path: /tmp/x}\nconditions: {ack_topic: pushbridge/ack}\n") -> String {
        """
        routes:
          - name: leak
            topic: zigbee2mqtt/+
            alert: {title: "Water leak", body: "{{ topic }}"}
            condition:
        \(condition.split(separator: "\n").map { "      " + $0 }.joined(separator: "\n"))
        \(extra)
        """
    }

    @Test func fullConditionLoads() throws {
        let config = try loadConfig(Self.yaml("""
            key: "{{ topic }}"
            active: 'payload.water_leak == true'
            repeat: {every: 10m, count: 6}
            escalate:
              - after: 15m
                set: {interruption_level: critical, title: "Still: {{ content.title }}"}
              - after: 1h
                display_topic: "display/escalated/{{ topic }}"
            on_clear: notify
            clear_alert: {title: "Dry again"}
            max_active: 500
            """))
        let c = try #require(config.routes[0].condition)
        #expect(c.key.source == "{{ topic }}")
        #expect(c.active.source == "payload.water_leak == true")
        #expect(c.repeatEvery == .seconds(600))
        #expect(c.repeatCount == 6)
        #expect(c.escalate.count == 2)
        #expect(c.escalate[0].after == .seconds(900))
        #expect(c.escalate[0].set.map(\.field) == ["interruption_level", "title"])
        #expect(c.escalate[1].displayTopic?.source == "display/escalated/{{ topic }}")
        #expect(c.onClear == .notify)
        #expect(c.clearAlert?.map(\.field) == ["title"])
        #expect(c.maxActive == 500)
        #expect(config.conditions?.ackTopic == "pushbridge/ack")
        #expect(config.warnings.isEmpty)
    }

    @Test func defaults() throws {
        let config = try loadConfig(Self.yaml("key: \"{{ topic }}\"\nactive: 'payload.smoke'"))
        let c = try #require(config.routes[0].condition)
        #expect(c.repeatEvery == nil && c.repeatCount == nil && c.escalate.isEmpty)
        #expect(c.onClear == .withdraw && c.clearAlert == nil && c.maxActive == 10_000)
    }

    @Test func repeatWithoutCountRepeatsUntilAcknowledged() throws {
        let config = try loadConfig(Self.yaml("key: k\nactive: 'true'\nrepeat: {every: 30s}"))
        #expect(config.routes[0].condition?.repeatEvery == .seconds(30))
        #expect(config.routes[0].condition?.repeatCount == nil)
        #expect(config.routes[0].condition?.life.contains("repeats every 30s until acknowledged") == true)
    }

    @Test func unknownKeysGetDidYouMean() {
        let errors = configErrors(Self.yaml("key: k\nactive: 'true'\nrepaet: {every: 1m}"))
        #expect(errors == ["bridge.yml:8:7: error: unknown key 'repaet' in condition; did you mean 'repeat'?"])
        let inner = configErrors(Self.yaml("key: k\nactive: 'true'\nrepeat: {evry: 1m}"))
        #expect(inner.contains("bridge.yml:8:16: error: unknown key 'evry' in repeat; did you mean 'every'?"))
        let step = configErrors(Self.yaml("key: k\nactive: 'true'\nescalate: [{afterr: 1m}]"))
        #expect(step.contains { $0.contains("unknown key 'afterr' in escalation step; did you mean 'after'?") })
        let top = configErrors(Self.yaml("key: k\nactive: 'true'", extra: "conditions: {ack_topik: a/b}"))
        #expect(top.contains { $0.contains("unknown key 'ack_topik' in conditions; did you mean 'ack_topic'?") })
        let route = configErrors("routes:\n  - topic: a\n    conditoin: {}\n")
        #expect(route == ["bridge.yml:3:5: error: unknown key 'conditoin' in route; did you mean 'condition'?"])
    }

    @Test func everyProblemIsReportedAtItsValue() {
        let errors = configErrors(Self.yaml("""
            active: 'payload.x =='
            repeat: {every: soon, count: 0}
            escalate:
              - after: 10m
              - after: 5m
            on_clear: widthraw
            max_active: 0
            """))
        #expect(errors.contains("bridge.yml:6:7: error: 'condition' needs 'key'"))
        #expect(errors.contains { $0.hasPrefix("bridge.yml:6:28: error: invalid expression in 'active'") })
        #expect(errors.contains { $0.hasPrefix("bridge.yml:7:23: error: 'every' must be a duration") })
        #expect(errors.contains("bridge.yml:7:36: error: 'count' must be at least 1, got 0"))
        #expect(errors.contains("bridge.yml:10:18: error: escalation steps must be in order of 'after': 5m is not after 10m"))
        #expect(errors.contains("bridge.yml:11:17: error: 'on_clear' must be one of \"withdraw\", \"notify\" or \"none\", got \"widthraw\"; did you mean \"withdraw\"?"))
        #expect(errors.contains("bridge.yml:12:19: error: 'max_active' must be between 1 and 10000000, got 0"))
        #expect(errors.count == 7)
    }

    @Test func repeatNeedsEveryAndEscalationNeedsAfter() {
        let errors = configErrors(Self.yaml("key: k\nactive: 'true'\nrepeat: {count: 3}\nescalate: [{set: {title: x}}]"))
        #expect(errors.contains("bridge.yml:8:15: error: 'repeat' needs 'every'"))
        #expect(errors.contains("bridge.yml:9:18: error: 'escalation step' needs 'after'"))
    }

    @Test func escalationSetChecksConstantsAndFields() {
        let errors = configErrors(Self.yaml("key: k\nactive: 'true'\nescalate: [{after: 1m, set: {interruption_level: loud, titel: x}}]"))
        #expect(errors.contains { $0.contains("'interruption_level' must be one of") })
        #expect(errors.contains { $0.contains("unknown key 'titel' in set; did you mean 'title'?") })
        let topic = configErrors(Self.yaml("key: k\nactive: 'true'\nescalate: [{after: 1m, display_topic: 'a/#'}]"))
        #expect(topic.contains { $0.contains("invalid 'display_topic' 'a/#'") })
    }

    @Test func ackTopicIsValidated() {
        let errors = configErrors(Self.yaml("key: k\nactive: 'true'", extra: "conditions: {ack_topic: 'ack/+'}"))
        #expect(errors.contains { $0.contains("invalid 'ack_topic' 'ack/+'") })
        let missing = configErrors(Self.yaml("key: k\nactive: 'true'", extra: "conditions: {}"))
        #expect(missing.contains { $0.contains("'conditions' needs 'ack_topic'") })
    }

    @Test func warnsWithoutJournalOrAckTopic() throws {
        let config = try loadConfig(Self.yaml("key: k\nactive: 'true'", extra: ""))
        let texts = config.warnings.map(\.description)
        #expect(texts.contains { $0.hasPrefix("bridge.yml:5:5: warning: route 'leak' has a condition but there is no 'journal'") })
        #expect(texts.contains { $0.contains("no 'conditions: {ack_topic: …}'") })
        let clear = try loadConfig(Self.yaml("key: k\nactive: 'true'\nclear_alert: {title: ok}"))
        #expect(clear.warnings.map(\.description).contains { $0.contains("'clear_alert' is sent only with 'on_clear: notify'") })
    }

    @Test func checkPrintsTheLifeInOneLine() throws {
        let config = try loadConfig(Self.yaml("""
            key: "{{ topic }}"
            active: 'payload.water_leak == true'
            repeat: {every: 10m, count: 6}
            escalate: [{after: 15m, set: {interruption_level: critical}}]
            """))
        let text = config.describe()
        #expect(text.contains("""
                 condition: one per key "{{ topic }}"; raised while "payload.water_leak == true"; repeats every 10m up to 6 times; step 1 after 15m sets interruption_level; a clear withdraws the alert; max_active=10000
            """))
        #expect(text.contains("conditions: ack_topic=pushbridge/ack"))
    }
}
