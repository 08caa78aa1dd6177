import Foundation
import Testing
@testable import PushBridge

/// `people:`, `audience:` and `when_nobody:` as the loader reads them: what loads, and each
/// mistake as a positioned error that says what to do (with did-you-mean where a name is near).
@Suite struct PeopleConfigTests {
    static let outputs = """
        outputs:
          - name: alice-phone
            ntfy: {url: "https://ntfy.example.com/alice"}
          - name: bob-ntfy
            ntfy: {url: "https://ntfy.example.com/bob"}
          - name: hall-speaker
            webhook: {url: "https://example.com/hook"}
        """

    static func yaml(people: String, route: String = "") -> String {
        """
        routes:
          - name: doorbell
            topic: home/+/doorbell
        \(route.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
        \(outputs)
        people:
        \(people.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
        """
    }

    static let twoPeople = """
        - name: alice
          outputs: [alice-phone]
          presence:
            topic: owntracks/alice/phone
            home: '"home" in (payload.inregions | default([]))'
            stale_after: 12h
        - name: bob
          outputs: [bob-ntfy, alice-phone]
          presence: {topic: homeassistant/person/bob/state, home: 'raw == "home"'}
        """

    @Test("two people, an audience and when_nobody load; an output may belong to two people")
    func loads() throws {
        let config = try loadConfig(Self.yaml(people: Self.twoPeople, route: "audience: home\nwhen_nobody: hold"))
        #expect(config.people.map(\.name) == ["alice", "bob"])
        #expect(config.people[0].presence?.topic == "owntracks/alice/phone")
        #expect(config.people[0].presence?.staleAfter == .seconds(43_200))
        #expect(config.people[1].presence?.staleAfter == nil)
        #expect(config.people[1].outputs == ["bob-ntfy", "alice-phone"])
        #expect(config.routes[0].audience == .home)
        #expect(config.routes[0].whenNobody == .hold)
        #expect(config.presenceTopicFilters == ["owntracks/alice/phone", "homeassistant/person/bob/state"])
        let subscribed = RouteSubscriptions.subscriptions(for: config).map(\.filter)
        #expect(subscribed.contains("owntracks/alice/phone") && subscribed.contains("homeassistant/person/bob/state"))
    }

    @Test("defaults: audience everyone, when_nobody everyone; a list audience; away")
    func defaults() throws {
        var config = try loadConfig(Self.yaml(people: Self.twoPeople))
        #expect(config.routes[0].audience == .everyone)
        #expect(config.routes[0].whenNobody == .everyone)
        config = try loadConfig(Self.yaml(people: Self.twoPeople, route: "audience: [alice]\nwhen_nobody: none"))
        #expect(config.routes[0].audience == .people(["alice"]))
        #expect(config.routes[0].whenNobody == WhenNobody.none)
        config = try loadConfig(Self.yaml(people: Self.twoPeople, route: "audience: away"))
        #expect(config.routes[0].audience == .away)
    }

    @Test("an unknown output in a person's outputs: positioned, with did-you-mean")
    func unknownOutput() {
        let errors = configErrors(Self.yaml(people: "- name: alice\n  outputs: [alice-phon]"))
        #expect(errors.count == 1)
        #expect(errors.first?.contains("unknown output 'alice-phon' in a person's 'outputs'; did you mean 'alice-phone'?") == true)
        #expect(errors.first?.hasPrefix("bridge.yml:1") == true)
    }

    @Test("a person without outputs, or with an empty list, is an error")
    func noOutputs() {
        let missing = configErrors(Self.yaml(people: "- name: alice"))
        #expect(missing.contains { $0.contains("person 'alice' needs 'outputs'") })
        let empty = configErrors(Self.yaml(people: "- name: alice\n  outputs: []"))
        #expect(empty.contains { $0.contains("person 'alice' has an empty 'outputs'") })
    }

    @Test("an audience naming an unknown person: did-you-mean; an unknown word: did-you-mean")
    func unknownAudience() {
        let errors = configErrors(Self.yaml(people: Self.twoPeople, route: "audience: [alcie]"))
        #expect(errors.count == 1)
        #expect(errors.first?.contains("route 'doorbell': unknown person 'alcie' in 'audience'; did you mean 'alice'?") == true)
        let word = configErrors(Self.yaml(people: Self.twoPeople, route: "audience: hom"))
        #expect(word.first?.contains("did you mean \"home\"?") == true)
        let nobody = configErrors(Self.yaml(people: Self.twoPeople, route: "when_nobody: hodl"))
        #expect(nobody.first?.contains("did you mean \"hold\"?") == true)
    }

    @Test("duplicate people, a bad presence topic, a bad home expression, a missing home, an unknown key")
    func mistakes() {
        let dup = configErrors(Self.yaml(people: "- {name: alice, outputs: [alice-phone]}\n- {name: alice, outputs: [bob-ntfy]}"))
        #expect(dup.contains { $0.contains("duplicate person 'alice'") })
        let topic = configErrors(Self.yaml(people: "- {name: alice, outputs: [alice-phone], presence: {topic: 'a/#/b', home: 'true'}}"))
        #expect(topic.contains { $0.contains("invalid presence topic 'a/#/b'") })
        let expr = configErrors(Self.yaml(people: "- {name: alice, outputs: [alice-phone], presence: {topic: a, home: 'raw =='}}"))
        #expect(expr.contains { $0.contains("invalid expression in 'home'") })
        let noHome = configErrors(Self.yaml(people: "- {name: alice, outputs: [alice-phone], presence: {topic: a}}"))
        #expect(noHome.contains { $0.contains("'home'") })
        let key = configErrors(Self.yaml(people: "- {name: alice, outputs: [alice-phone], presense: {topic: a, home: 'true'}}"))
        #expect(key.contains { $0.contains("unknown key 'presense'") && $0.contains("did you mean 'presence'?") })
    }

    @Test("an audience without people: is an error that says so")
    func audienceWithoutPeople() {
        let errors = configErrors("""
            routes:
              - name: doorbell
                topic: home/+/doorbell
                audience: home
            """)
        #expect(errors.contains { $0.contains("'audience' needs a 'people:' section") })
        let list = configErrors("""
            routes:
              - name: doorbell
                topic: home/+/doorbell
                audience: [alice]
            """)
        #expect(list.contains { $0.contains("unknown person 'alice'") && $0.contains("there is no 'people:' section") })
    }

    @Test("pushbridge check shows the people and the route's audience")
    func describe() throws {
        let text = try loadConfig(Self.yaml(people: Self.twoPeople, route: "audience: home\nwhen_nobody: hold")).describe()
        #expect(text.contains("audience: home (the people at home; unknown counts) when_nobody=hold"))
        #expect(text.contains("people (2):"))
        #expect(text.contains("  alice: outputs=alice-phone presence from owntracks/alice/phone home when"))
        #expect(text.contains("stale_after=12h"))
        #expect(text.contains("  bob: outputs=bob-ntfy,alice-phone presence from homeassistant/person/bob/state home when \"raw == \"home\"\""))
    }

    @Test("presence.<name> and people_home compile in expressions and templates")
    func variables() throws {
        let config = try loadConfig("""
            routes:
              - name: motion
                topic: home/+/motion
                alert: {title: "{{ people_home }} home; alice {{ presence.alice }}"}
            extension:
              filters:
                - suppress: 'people_home > 0'
                  routes: [motion]
            """)
        #expect(config.extension.filters.count == 1)
    }
}
