import Foundation
import Testing
@testable import PushBridge

@Suite struct ConfigLoaderTests {
    @Test func fiveMistakesAreAllReportedInOrder() {
        let yaml = """
        broker:
          host: mqtt.local
          port: 70000
        routes:
          - name: doorbell
            topic: home/+/doorbell
            qos: two
            push_tpye: alert
          - topic: home/#/x
        display:
          retain: yes

        """
        #expect(configErrors(yaml) == [
            "bridge.yml:3:9: error: 'port' must be between 1 and 65535, got 70000",
            "bridge.yml:7:10: error: 'qos' must be 0, 1 or 2, got \"two\"",
            "bridge.yml:8:5: error: unknown key 'push_tpye' in route; did you mean 'push_type'?",
            "bridge.yml:9:12: error: invalid topic filter 'home/#/x': '#' must be the last topic level",
            "bridge.yml:11:11: error: 'retain' must be true or false, got yes (YAML 1.1 booleans are not accepted; write true)",
        ])
    }

    @Test func minimalFileLoadsWithSpecDefaults() throws {
        let c = try loadConfig("routes: [{topic: a/b}]\n")
        #expect(c.broker.host == "localhost")
        #expect(c.broker.effectivePort == 1883)
        #expect(c.broker.clientID == "pushbridge")
        #expect(c.broker.protocolVersion == .v5)
        #expect(c.broker.keepalive == .seconds(30))
        #expect(c.broker.cleanStart == false)
        #expect(c.broker.sessionExpiry == .seconds(86_400))
        #expect(c.broker.username == nil && c.broker.password == nil && c.broker.tls == nil)
        #expect(c.broker.reconnectMin == .seconds(1) && c.broker.reconnectMax == .seconds(30))
        #expect(c.entitlements.isEmpty)
        #expect(c.routes.count == 1)
        let r = try #require(c.routes.first)
        #expect(r.name == "a/b" && r.topic == "a/b" && r.subscriptionFilter == "a/b")
        #expect(r.qos == 1 && r.share == nil && r.input == .json && r.pushType == .alert)
        #expect(r.effectivePriority == 10 && r.priority == nil)
        #expect(r.mutableContent == true)
        #expect(r.collapseID == nil && r.expiration == nil)
        #expect(r.alert[.body]?.source == "{{ raw }}")
        #expect(r.alert[.title] == nil && r.alert[.sound] == nil && r.alert[.badge] == nil)
        #expect(r.userInfo?.source == "{{ payload }}")
        #expect(r.location == "bridge.yml:1:10")
        #expect(c.extension.timeLimit == .seconds(30) && c.extension.expireGrace == .seconds(1))
        #expect(c.extension.concurrency == 256 && c.extension.onFailure == .deliver)
        #expect(c.extension.filters.isEmpty && c.extension.command == nil)
        #expect(c.display.topic.source == "display/{{ topic }}")
        #expect(c.display.qos == 1 && c.display.retain == false && c.display.format == .json)
        #expect(c.deadLetter == nil && c.journal == nil)
        #expect(c.monitoring.statusTopic == "pushbridge/status" && c.monitoring.statsTopic == "pushbridge/stats")
        #expect(c.monitoring.interval == .seconds(10) && c.monitoring.maxTopics == 1000)
        #expect(c.monitoring.http == nil && c.monitoring.logLevel == .info && c.monitoring.logFormat == .text)
    }

    @Test func fullFileLoads() throws {
        let yaml = """
        broker:
          host: ${BROKER_HOST:-localhost}
          port: ${BROKER_PORT}
          client_id: bridge-${HOSTNAME}
          protocol: 3.1.1
          keepalive: 1m
          clean_start: true
          session_expiry: 2h
          username: bridge
          password: s3cret
          tls: {ca_file: /etc/ca.pem, cert_file: c.pem, key_file: k.pem, insecure: true}
          reconnect: {min: 250ms, max: 1m}
        entitlements: [com.apple.developer.usernotifications.filtering]
        routes:
          - name: doorbell
            topic: home/+/doorbell
            qos: 2
            share: bridges
            input: text
            push_type: alert
            priority: 5
            mutable_content: false
            collapse_id: "door-{{ levels[1] }}"
            expiration: 1.5h
            alert:
              title: Doorbell
              body: "{{ payload }}"
              badge: 1
              interruption_level: time-sensitive
              relevance_score: 0.5
            user_info: "{{ payload.meta }}"
          - topic: sensors/#
            push_type: background
            input: apns
            expiration: "{{ payload.until }}"
        extension:
          time_limit: 10s
          expire_grace: 500ms
          concurrency: 8
          on_failure: drop
          command: [python3, /etc/pushbridge/filter.py]
          filters:
            - suppress: 'payload.level == "debug"'
              routes: [doorbell]
            - name: rewrite
              set: {title: "{{ payload.room }}: {{ content.title }}", thread_id: doors}
            - dedupe: {key: "{{ topic }}", window: 10m}
              when: 'qos > 0'
            - rate_limit: {key: "{{ topic }}", max: 5, window: 1m}
            - quiet_hours: {from: "22:00", to: "07:30", timezone: Europe/Berlin, unless: 'priority == 10'}
        display: {topic: "shown/{{ route }}", qos: 0, retain: true, format: apns}
        dead_letter: {topic: "dead/{{ route }}", qos: 2}
        journal: {path: /tmp/j, fsync: always, max_messages: 50}
        monitoring:
          status_topic: null
          stats_topic: bridge/stats
          interval: 5s
          max_topics: 10
          http: "127.0.0.1:9464"
          log_level: debug
          log_format: json

        """
        let c = try loadConfig(yaml, env: ["BROKER_PORT": "8884", "HOSTNAME": "node1"])
        #expect(c.broker.host == "localhost" && c.broker.port == 8884 && c.broker.clientID == "bridge-node1")
        #expect(c.broker.protocolVersion == .v311 && c.broker.keepalive == .seconds(60) && c.broker.cleanStart)
        #expect(c.broker.sessionExpiry == .seconds(7200) && c.broker.username == "bridge" && c.broker.password == "s3cret")
        #expect(c.broker.tls?.caFile == "/etc/ca.pem" && c.broker.tls?.insecure == true && c.broker.tls?.keyFile == "k.pem")
        #expect(c.broker.reconnectMin == .milliseconds(250) && c.broker.reconnectMax == .seconds(60))
        #expect(c.filteringGranted)
        let door = c.routes[0], sensors = c.routes[1]
        #expect(door.qos == 2 && door.share == "bridges" && door.subscriptionFilter == "$share/bridges/home/+/doorbell")
        #expect(door.input == .text && door.priority == 5 && door.mutableContent == false)
        #expect(door.collapseID?.source == "door-{{ levels[1] }}")
        if case .after(let d)? = door.expiration { #expect(d == .seconds(5400)) } else { Issue.record("expiration") }
        #expect(door.alert[.title]?.source == "Doorbell" && door.alert[.body]?.source == "{{ payload }}")
        #expect(door.alert[.badge]?.source == "1" && door.alert[.relevanceScore]?.source == "0.5")
        #expect(door.userInfo?.source == "{{ payload.meta }}")
        #expect(sensors.name == "sensors/#" && sensors.pushType == .background && sensors.effectivePriority == 5)
        #expect(sensors.alert[.body] == nil)
        if case .template(let t)? = sensors.expiration { #expect(t.source == "{{ payload.until }}") } else { Issue.record("template") }
        #expect(c.extension.timeLimit == .seconds(10) && c.extension.expireGrace == .milliseconds(500))
        #expect(c.extension.concurrency == 8 && c.extension.onFailure == .drop)
        #expect(c.extension.command == ["python3", "/etc/pushbridge/filter.py"])
        #expect(c.extension.filters.map(\.name) == ["suppress#1", "rewrite", "dedupe#3", "rate_limit#4", "quiet_hours#5"])
        #expect(c.extension.filters[0].routes == ["doorbell"] && c.extension.filters[1].routes == nil)
        if case .set(let fields) = c.extension.filters[1].action {
            #expect(fields.map(\.field) == ["title", "thread_id"])
        } else { Issue.record("set") }
        #expect(c.extension.filters[2].when?.source == "qos > 0")
        if case .rateLimit(_, let max, let window) = c.extension.filters[3].action {
            #expect(max == 5 && window == .seconds(60))
        } else { Issue.record("rate_limit") }
        if case .quietHours(let from, let to, let zone, let unless) = c.extension.filters[4].action {
            #expect(from == 1320 && to == 450 && zone == "Europe/Berlin" && unless?.source == "priority == 10")
        } else { Issue.record("quiet_hours") }
        #expect(c.display.topic.source == "shown/{{ route }}" && c.display.qos == 0 && c.display.retain && c.display.format == .apns)
        #expect(c.deadLetter?.topic.source == "dead/{{ route }}" && c.deadLetter?.qos == 2)
        #expect(c.journal?.path == "/tmp/j" && c.journal?.fsync == .always && c.journal?.maxMessages == 50)
        #expect(c.monitoring.statusTopic == nil && c.monitoring.statsTopic == "bridge/stats")
        #expect(c.monitoring.interval == .seconds(5) && c.monitoring.maxTopics == 10 && c.monitoring.http == HostPort(host: "127.0.0.1", port: 9464))
        #expect(c.monitoring.logLevel == .debug && c.monitoring.logFormat == .json)
    }

    @Test func missingFileIsAnUnpositionedError() {
        let path = NSTemporaryDirectory() + "missing-\(UUID().uuidString)/bridge.yml"
        guard case .failure(let errors) = ConfigLoader.load(path: path, environment: [:]) else {
            Issue.record("loaded"); return
        }
        #expect(errors.errors.map(\.description) == ["\(path): error: cannot read file: No such file or directory"])
    }

    @Test func loadsFromDisk() throws {
        let dir = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "routes:\n  - topic: x/y\n".write(toFile: dir + "/bridge.yml", atomically: true, encoding: .utf8)
        let result = ConfigLoader.load(path: dir + "/bridge.yml", environment: [:])
        #expect((try? result.get())?.routes.first?.topic == "x/y")
        guard case .failure(let errors) = ConfigLoader.load(path: dir, environment: [:]) else { Issue.record("dir loaded"); return }
        #expect(errors.errors.first?.description == "\(dir): error: cannot read file: Is a directory")
    }

    @Test func syntaxErrorIsReportedWithLibyamlProblem() {
        #expect(configErrors("routes:\n  - topic: a\n   qos: 1\n") == [
            "bridge.yml:3:4: error: did not find expected '-' indicator while parsing a block collection",
        ])
    }

    @Test func environmentSubstitutionTypesPlainScalarsFromTheResult() throws {
        let yaml = "broker:\n  port: ${PORT}\n  clean_start: ${CLEAN:-true}\nroutes: [{topic: a}]\n"
        let c = try loadConfig(yaml, env: ["PORT": "1884"])
        #expect(c.broker.port == 1884 && c.broker.cleanStart)
        #expect(configErrors(yaml, env: ["PORT": "abc"]) == ["bridge.yml:2:9: error: 'port' must be an integer, got \"abc\""])
        #expect(configErrors("broker:\n  port: \"${PORT}\"\nroutes: [{topic: a}]\n", env: ["PORT": "1884"])
                == ["bridge.yml:2:9: error: 'port' must be an integer, got \"1884\""])
        // A substituted empty plain scalar is null: the default stays.
        #expect(try loadConfig("broker:\n  username: ${U:-}\nroutes: [{topic: a}]\n").broker.username == nil)
        #expect(try loadConfig("broker:\n  password: \"$${NOT}\"\nroutes: [{topic: a}]\n").broker.password == "${NOT}")
    }

    @Test func unsetVariableIsPositionedAtTheReference() {
        #expect(configErrors("broker:\n  client_id: bridge-${HOSTNAME}\nroutes: [{topic: a}]\n") == [
            "bridge.yml:2:21: error: environment variable 'HOSTNAME' is not set (use ${HOSTNAME:-default} to give a default)",
        ])
    }

    @Test func passwordFileReadsTheFirstLine() throws {
        let dir = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "s3cret\r\nsecond line\n".write(toFile: dir + "/pw", atomically: true, encoding: .utf8)
        let c = try loadConfig("broker:\n  password_file: pw\nroutes: [{topic: a}]\n", path: dir + "/bridge.yml")
        #expect(c.broker.password == "s3cret")
        #expect(c.broker.passwordFile == dir + "/pw")
        try "only\n".write(toFile: dir + "/pw2", atomically: true, encoding: .utf8)
        #expect(try loadConfig("broker: {password_file: \(dir)/pw2}\nroutes: [{topic: a}]\n").broker.password == "only")
        #expect(configErrors("broker:\n  password_file: \(dir)/nope\nroutes: [{topic: a}]\n") == [
            "bridge.yml:2:18: error: cannot read 'password_file' '\(dir)/nope': No such file or directory",
        ])
    }

    @Test func unknownTopLevelKeyListsKnownKeysWhenNothingIsClose() {
        #expect(configErrors("zzz: 1\nroutes: [{topic: a}]\n") == [
            "bridge.yml:1:1: error: unknown key 'zzz' in bridge.yml; known keys: broker, entitlements, routes, extension, display, dead_letter, journal, monitoring, partition, state, homeassistant, outputs, conditions, attachments, people",
        ])
    }

    @Test func loopThroughTheDisplayTopicIsAnError() {
        let errors = configErrors("routes:\n  - name: all\n    topic: '#'\n")
        #expect(errors == [
            "bridge.yml:3:12: error: route 'all' (topic '#') would receive the bridge's own display messages on 'display/{{ topic }}'; narrow the filter",
            "bridge.yml:3:12: error: route 'all' (topic '#') would receive the bridge's own status messages on 'pushbridge/status'; narrow the filter",
            "bridge.yml:3:12: error: route 'all' (topic '#') would receive the bridge's own stats messages on 'pushbridge/stats'; narrow the filter",
        ])
        #expect(configErrors("routes: [{topic: 'home/#'}]\ndead_letter: {topic: 'home/dead/{{ route }}'}\n") == [
            "bridge.yml:1:18: error: route 'home/#' (topic 'home/#') would receive the bridge's own dead-letter messages on 'home/dead/{{ route }}'; narrow the filter",
        ])
        #expect(configErrors("routes: [{topic: 'home/#'}]\nmonitoring: {status_topic: null, stats_topic: ~}\n").isEmpty)
    }
}
