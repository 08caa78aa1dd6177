import Testing
@testable import PushBridge

@Suite struct ConfigDescriptionTests {
    @Test func summaryShowsResolvedRoutesAndHidesThePassword() throws {
        let yaml = """
        broker: {host: mqtt, password: hunter2, username: me}
        routes:
          - {name: door, topic: home/+/door, share: g1, priority: 5}
          - {topic: bg/#, push_type: none, input: apns}
          - {name: ha, topic: ha/#, input: apns, push_type: alert, collapse_id: "ha-{{ topic }}", expiration: 1h, retained: deliver}
          - {name: ha-legacy, topic: legacy/#, input: apns}
        extension:
          filters:
            - {suppress: 'payload.x', routes: [door]}
            - quiet_hours: {from: "22:00", to: "07:05"}
            - changed: {key: "{{ topic }}", value: "{{ raw | trim }}", deadband: 0.5, max_keys: 50}
        journal: {path: /tmp/j}

        """
        let text = try loadConfig(yaml).describe()
        #expect(!text.contains("hunter2"))
        #expect(text.contains("password=***"))
        #expect(text.contains("broker: mqtt:1883 client_id=pushbridge protocol=5"))
        #expect(text.contains("1. door: $share/g1/home/+/door qos=1 retained=skip input=json push_type=alert priority=5 mutable_content=true"))
        #expect(text.contains("2. bg/#: bg/# qos=1 retained=skip input=apns push_type=none (unless apns-push-type) priority=10 mutable_content=from aps.mutable-content"))
        // input: apns prints where each header comes from (a user property, else the route).
        #expect(text.contains("3. ha: ha/# qos=1 retained=deliver input=apns push_type=alert (unless apns-push-type)"))
        #expect(text.contains("headers: apns-push-type=property, else alert (route); apns-priority=property, else 10, 5 for background (default); apns-collapse-id=property, else \"ha-{{ topic }}\" (route); apns-expiration=property, else 1h after arrival (route); apns-id=property, else a UUID fixed at arrival"))
        #expect(text.contains("4. ha-legacy: legacy/# qos=1 retained=skip input=apns push_type=from apns-push-type (absent: legacy)"))
        #expect(text.contains("headers: apns-push-type=property, else absent (legacy);"))
        #expect(text.contains("3. changed#3: changed key=\"{{ topic }}\" value=\"{{ raw | trim }}\" deadband=0.5 initial=deliver routes=all max_keys=50"))
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
