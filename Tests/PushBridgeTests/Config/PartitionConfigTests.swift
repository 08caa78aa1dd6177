import Testing
@testable import PushBridge

/// `partition:` and the `share:` checks (docs/operations.md, "Scaling out").
@Suite struct PartitionConfigTests {
    @Test func readsIndexAndCount() throws {
        let c = try loadConfig("routes: [{topic: a/#}]\npartition: {index: 2, count: 3}\n")
        #expect(c.partition == PartitionConfig(index: 2, count: 3))
        #expect(c.warnings.isEmpty)
        #expect(try loadConfig("routes: [{topic: a/#}]\n").partition == nil)
        #expect(try loadConfig("routes: [{topic: a/#}]\npartition: null\n").partition == nil)
    }

    @Test func theEnvironmentGivesTheIndex() throws {
        let plain = "routes: [{topic: a/#}]\npartition:\n  index: ${REPLICA}\n  count: ${REPLICAS:-3}\n"
        #expect(try loadConfig(plain, env: ["REPLICA": "1"]).partition == PartitionConfig(index: 1, count: 3))
        let quoted = "routes: [{topic: a/#}]\npartition: {index: \"${REPLICA}\", count: '${REPLICAS}'}\n"
        #expect(try loadConfig(quoted, env: ["REPLICA": "0", "REPLICAS": "2"]).partition == PartitionConfig(index: 0, count: 2))
        // (The empty substitution also reads as a missing index.)
        #expect(configErrors(plain) == [
            "bridge.yml:3:3: error: 'partition' needs 'index'",
            "bridge.yml:3:10: error: environment variable 'REPLICA' is not set (use ${REPLICA:-default} to give a default)",
        ])
        #expect(configErrors(quoted, env: ["REPLICA": "one", "REPLICAS": "2"])
                == ["bridge.yml:2:20: error: 'index' must be an integer, got \"one\""])
    }

    @Test(arguments: [
        ("partition: {index: 3, count: 3}",
         "bridge.yml:2:20: error: 'index' must be between 0 and 2 (partition count 3), got 3"),
        ("partition: {index: -1, count: 3}", "bridge.yml:2:20: error: 'index' must be at least 0, got -1"),
        ("partition: {index: 0, count: 0}", "bridge.yml:2:30: error: 'count' must be between 1 and 65536, got 0"),
        ("partition: {index: 0, count: \"3\"}", "bridge.yml:2:30: error: 'count' must be an integer, got \"3\""),
        ("partition: {index: 1.5, count: 3}", "bridge.yml:2:20: error: 'index' must be an integer, got 1.5"),
        ("partition: {index: 0}", "bridge.yml:2:12: error: 'partition' needs 'count'"),
        ("partition: {count: 2}", "bridge.yml:2:12: error: 'partition' needs 'index'"),
        ("partition: {index: 0, count: 2, cuont: 2}",
         "bridge.yml:2:33: error: unknown key 'cuont' in partition; did you mean 'count'?"),
        ("partition: 3", "bridge.yml:2:12: error: 'partition' must be a mapping, got 3"),
        ("partiton: {index: 0, count: 2}", "bridge.yml:2:1: error: unknown key 'partiton' in bridge.yml; did you mean 'partition'?"),
    ])
    func positionedErrors(line: String, expected: String) {
        #expect(configErrors("routes: [{topic: a/#}]\n" + line + "\n") == [expected])
    }

    @Test func shareWithPartitionIsAnErrorAtThePartitionKey() {
        let yaml = """
            routes:
              - name: door
                topic: home/+/door
                share: bridges
              - topic: sensors/#
              - topic: apns/#
                share: bridges
            partition: {index: 0, count: 2}

            """
        #expect(configErrors(yaml) == [
            "bridge.yml:8:1: error: 'partition' and 'share' cannot be combined (share: on route 'door' at line 4 and route 'apns/#' at line 7): with partition every replica subscribes without sharing and keeps only its own topics; remove 'share' from the routes, or remove 'partition'",
        ])
        // share: null is no share.
        #expect(configErrors("routes: [{topic: a/#, share: null}]\npartition: {index: 0, count: 2}\n").isEmpty)
    }

    static let stateful = """
        routes:
          - name: door
            topic: home/+/door
            share: bridges
          - name: plain
            topic: plain/#
          - name: meters
            topic: meters/#
            share: bridges
        extension:
          filters:
            - name: once
              dedupe: {key: "{{ topic }}", window: 10m}
              routes: [door]
            - rate_limit: {key: "{{ topic }}", max: 3, window: 1m}
              routes: [door, plain]
            - suppress: 'payload.test == true'
            - name: quiet
              quiet_hours: {from: "22:00", to: "07:00"}

        """

    @Test func shareWithAStatefulFilterWarnsAtTheShareKey() throws {
        let c = try loadConfig(Self.stateful)
        #expect(c.warnings.map(\.description) == [
            "bridge.yml:4:5: warning: route 'door' subscribes with 'share: bridges' and filters 'once' (dedupe, line 13) and 'rate_limit#2' (rate_limit, line 15) keep their memory per replica: a round-robin broker (mosquitto) spreads one topic's messages over the group, so each replica sees only part of them and their order on the display topic is not kept; keep the memory in Redis ('state.redis'), use 'partition:' instead, or EMQX's hash_topic shared-subscription strategy",
        ])
        #expect(c.routes.map(\.share) == ["bridges", nil, "bridges"])
    }

    @Test func aFilterForEveryRouteWarnsForEachSharedRoute() throws {
        let yaml = "routes:\n  - {topic: a/#, share: g}\n  - {topic: b/#}\n  - {topic: c/#, share: g}\n"
            + "extension:\n  filters:\n    - rate_limit: {key: \"{{ topic }}\", max: 1, window: 1m}\n"
        let c = try loadConfig(yaml)
        #expect(c.warnings.map { "\($0.line):\($0.column)" } == ["2:18", "4:18"])
        #expect(c.warnings.allSatisfy { $0.message.contains("filter 'rate_limit#1' (rate_limit, line 7) keeps its memory per replica") })
    }

    @Test func aChangedFilterWarnsToo() throws {
        let yaml = "routes:\n  - {name: meters, topic: m/#, share: g}\n"
            + "extension:\n  filters:\n    - name: on-change\n      changed: {key: \"{{ topic }}\", value: \"{{ raw }}\"}\n"
        let c = try loadConfig(yaml)
        #expect(c.warnings.map(\.description) == [
            "bridge.yml:2:32: warning: route 'meters' subscribes with 'share: g' and filter 'on-change' (changed, line 6) keeps its memory per replica: a round-robin broker (mosquitto) spreads one topic's messages over the group, so each replica sees only part of them and their order on the display topic is not kept; keep the memory in Redis ('state.redis'), use 'partition:' instead, or EMQX's hash_topic shared-subscription strategy",
        ])
    }

    @Test func noWarningWithoutShareOrWithoutStatefulFilters() throws {
        #expect(try loadConfig(Self.stateful.replacingOccurrences(of: "    share: bridges\n", with: "")).warnings.isEmpty)
        let stateless = "routes:\n  - {topic: a/#, share: g}\nextension:\n  filters:\n    - suppress: 'raw == \"x\"'\n"
        #expect(try loadConfig(stateless).warnings.isEmpty)
        let partitioned = Self.stateful.replacingOccurrences(of: "    share: bridges\n", with: "")
            + "partition: {index: 1, count: 3}\n"
        #expect(try loadConfig(partitioned).warnings.isEmpty)
    }

    @Test func checkDescribesThePartition() throws {
        let c = try loadConfig("routes: [{topic: a/#}]\npartition: {index: 1, count: 3}\n")
        #expect(c.describe().contains("partition: index=1 count=3 (this replica handles the topics whose FNV-1a 32-bit hash modulo 3 is 1)"))
        #expect(try loadConfig("routes: [{topic: a/#}]\n").describe().contains("partition: off"))
    }
}
