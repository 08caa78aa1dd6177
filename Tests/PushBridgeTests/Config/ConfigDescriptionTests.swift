import Testing
@testable import PushBridge

@Suite struct ConfigDescriptionTests {
    @Test func summaryShowsResolvedRoutesAndHidesThePassword() throws {
        let yaml = """
        broker: {host: mqtt, password: hunter2, username: me}
        routes:
          - {name: door, topic: home/+/door, share: g1, priority: 5}
          - {topic: bg/#, push_type: none, input: apns}
        extension:
          filters:
            - {suppress: 'payload.x', routes: [door]}
            - quiet_hours: {from: "22:00", to: "07:05"}
        journal: {path: /tmp/j}

        """
        let text = try loadConfig(yaml).describe()
        #expect(!text.contains("hunter2"))
        #expect(text.contains("password=***"))
        #expect(text.contains("broker: mqtt:1883 client_id=pushbridge protocol=5"))
        #expect(text.contains("1. door: $share/g1/home/+/door qos=1 input=json push_type=alert priority=5 mutable_content=true"))
        #expect(text.contains("2. bg/#: bg/# qos=1 input=apns push_type=none priority=10"))
        #expect(text.contains("alert: body=\"{{ raw }}\""))
        #expect(text.contains("alert: from the APNs body"))
        #expect(text.contains("1. suppress#1: suppress \"payload.x\" routes=door"))
        #expect(text.contains("2. quiet_hours#2: quiet_hours 22:00-07:05 timezone=local routes=all"))
        #expect(text.contains("display: topic=\"display/{{ topic }}\" qos=1 retain=false format=json"))
        #expect(text.contains("dead_letter: off"))
        #expect(text.contains("journal: path=/tmp/j fsync=interval max_messages=100000"))
        #expect(text.contains("monitoring: status_topic=pushbridge/status stats_topic=pushbridge/stats interval=10s max_topics=1000"))
    }
}
