import Testing
@testable import PushBridge

/// `depends_on` and `depends_key` between condition routes: read, and checked across routes
/// (a condition route, not itself, no cycle), each problem at its value.
@Suite struct DependencyConfigTests {
    /// Routes `name: condition-extra` (an extra of `nil`: no condition) in this order.
    static func yaml(_ routes: [(name: String, condition: String?)]) -> String {
        var lines = ["journal: {path: /tmp/x}", "conditions: {ack_topic: pushbridge/ack}", "routes:"]
        for (name, condition) in routes {
            lines.append("  - name: \(name)")
            lines.append("    topic: zigbee2mqtt/\(name)/#")
            guard let condition else { continue }
            lines.append("    condition:")
            lines.append("      key: \"{{ topic }}\"")
            lines.append("      active: 'payload.state == \"offline\"'")
            if !condition.isEmpty { lines.append("      " + condition) }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    @Test func dependsOnAndKeyLoad() throws {
        let config = try loadConfig(Self.yaml([("bridge", ""), ("device", "depends_on: bridge\n      depends_key: \"zigbee2mqtt/bridge/{{ levels[1] }}\"")]))
        let c = try #require(config.routes[1].condition)
        #expect(c.dependsOn == "bridge")
        #expect(c.dependsKey?.source == "zigbee2mqtt/bridge/{{ levels[1] }}")
        #expect(c.life.contains("silent (superseded) while a condition of 'bridge' with key \"zigbee2mqtt/bridge/{{ levels[1] }}\" is raised"))
        #expect(config.routes[0].condition?.dependsOn == nil)
    }

    @Test func unknownRouteGetsDidYouMean() {
        let errors = configErrors(Self.yaml([("bridge-offline", ""), ("device", "depends_on: bridge-ofline")]))
        #expect(errors == ["bridge.yml:14:19: error: route 'device': unknown route 'bridge-ofline' in 'depends_on'; did you mean 'bridge-offline'?"])
    }

    @Test func aRouteWithoutConditionCannotBeDependedOn() {
        let errors = configErrors(Self.yaml([("bridge", nil), ("device", "depends_on: bridge")]))
        #expect(errors == ["bridge.yml:11:19: error: route 'device': 'depends_on' names route 'bridge', which has no 'condition' (only a condition route can be depended on); no other route has a 'condition'"])
    }

    @Test func notItself() {
        let errors = configErrors(Self.yaml([("device", "depends_on: device")]))
        #expect(errors == ["bridge.yml:9:19: error: route 'device': 'depends_on' names the route itself; name the condition route that is its root cause"])
    }

    @Test func aCycleIsNamedOnce() {
        let errors = configErrors(Self.yaml([("a", "depends_on: b"), ("b", "depends_on: a"), ("c", "depends_on: a")]))
        #expect(errors == ["bridge.yml:9:19: error: 'depends_on' forms a cycle: a → b → a; a root cause cannot depend on what it causes"])
        let longer = configErrors(Self.yaml([("x", "depends_on: a"), ("a", "depends_on: b"), ("b", "depends_on: c"), ("c", "depends_on: a")]))
        #expect(longer == ["bridge.yml:15:19: error: 'depends_on' forms a cycle: a → b → c → a; a root cause cannot depend on what it causes"])
    }

    @Test func dependsKeyIsATemplateAndNeedsDependsOn() {
        let bad = configErrors(Self.yaml([("bridge", ""), ("device", "depends_on: bridge\n      depends_key: \"{{ topic \"")]))
        #expect(bad.count == 1 && bad.first?.hasPrefix("bridge.yml:15:21: error: invalid template in 'depends_key'") == true, "\(bad)")
        let alone = configErrors(Self.yaml([("bridge", ""), ("device", "depends_key: \"{{ topic }}\"")]))
        #expect(alone == ["bridge.yml:14:7: error: 'depends_key' needs 'depends_on' (the route whose condition it names)"])
    }
}
