import Testing
@testable import PushBridge

/// Which filters cover or overlap others, and the subscriptions left when covered ones go.
@Suite struct TopicFilterCoverTests {
    /// Every (outer, inner, covers) case, checked against brute force over sample topics too.
    static let coverCases: [(String, String, Bool)] = [
        ("#", "a", true), ("#", "a/b/c", true), ("#", "+/x", true), ("#", "#", true),
        ("#", "$SYS/broker/uptime", false), ("#", "$SYS/#", false), ("+/#", "$SYS/x", false),
        ("a/#", "a", true), ("a/#", "a/b", true), ("a/#", "a/+/c", true), ("a/#", "a/#", true),
        ("a/#", "b/c", false), ("a/#", "#", false), ("a/#", "+/b", false),
        ("a/+", "a/b", true), ("a/+", "a/+", true), ("a/+", "a/b/c", false), ("a/+", "a/#", false),
        ("a/+", "a", false), ("+", "a", true), ("+", "$SYS", false), ("+", "+", true), ("+", "#", false),
        ("a/b", "a/b", true), ("a/b", "a/c", false), ("a/b", "a/+", false), ("a/b", "a", false),
        ("a/+/c", "a/b/c", true), ("a/+/c", "a/b/+", false), ("a/b/+", "a/+/c", false),
        ("zigbee2mqtt/#", "zigbee2mqtt/+/availability", true),
        ("zigbee2mqtt/+/availability", "zigbee2mqtt/#", false),
        ("+/status/+", "shellyplussmoke-a8032ab12345/status/smoke:0", true),
        ("", "", true), ("a//b", "a/+/b", false), ("a/+/b", "a//b", true),
    ]

    static let sampleTopics = ["a", "a/b", "a/c", "a/b/c", "a/x/c", "a/b/d", "b/c", "$SYS", "$SYS/x",
                               "$SYS/broker/uptime", "x", "a//b", "zigbee2mqtt/hall/availability",
                               "zigbee2mqtt/bridge/state", "shellyplussmoke-a8032ab12345/status/smoke:0", "", "/", "a/b/c/d"]

    @Test(arguments: coverCases.indices)
    func covers(_ i: Int) {
        let (outer, inner, expected) = Self.coverCases[i]
        #expect(TopicFilterCover.covers(outer, inner) == expected, "\(outer) covers \(inner)")
        // Brute force: a covering filter matches every sample topic the inner one matches.
        if expected {
            for t in Self.sampleTopics where TopicFilter.matches(filter: inner, topic: t) {
                #expect(TopicFilter.matches(filter: outer, topic: t), "\(outer) must match \(t) (\(inner) does)")
            }
        }
    }

    @Test func overlapAgreesWithSampleTopics() {
        let filters = ["#", "+", "a", "a/#", "a/+", "a/b", "a/+/c", "a/b/+", "+/b", "$SYS/#", "+/#", "b/c", "a/b/c/d"]
        for f in filters {
            for g in filters {
                let some = Self.sampleTopics.contains { TopicFilter.matches(filter: f, topic: $0) && TopicFilter.matches(filter: g, topic: $0) }
                // A shared sample topic proves an overlap; the sample set is rich enough for the converse here.
                #expect(TopicFilterCover.overlap(f, g) == some, "\(f) overlaps \(g)")
            }
        }
        #expect(TopicFilterCover.overlap("a/+/c", "a/b/+"))
        #expect(!TopicFilterCover.overlap("#", "$SYS/#"))
        #expect(TopicFilterCover.overlap("$SYS/#", "$SYS/+"))
        #expect(!TopicFilterCover.overlap("a/+", "a/b/c"))
    }

    @Test func partialOverlapsAreTheOnesNeitherCovers() {
        let filters = ["a/+/c", "a/b/+", "a/#", "x/+", "$share/g/a/+/c", "$share/g/a/b/+"]
        let pairs = filters.indices.flatMap { n in filters.indices.dropFirst(n + 1).map { (filters[n], filters[$0]) } }
            .filter { TopicFilterCover.Parsed($0.0).partlyOverlaps(TopicFilterCover.Parsed($0.1)) }
        #expect(pairs.map { "\($0.0) \($0.1)" } == ["a/+/c a/b/+", "$share/g/a/+/c $share/g/a/b/+"])
    }

    func sub(_ f: String, _ qos: Int = 1, noLocal: Bool = true) -> MQTTSubscription {
        MQTTSubscription(filter: f, qos: qos, noLocal: noLocal)
    }

    @Test func coveredSubscriptionsGoAndTheCoveringOneTakesTheHigherQoS() {
        #expect(TopicFilterCover.minimal([sub("z/+/availability", 1), sub("z/#", 0)]) == [sub("z/#", 1)])
        #expect(TopicFilterCover.minimal([sub("z/#", 0), sub("z/+/availability", 2)]) == [sub("z/#", 2)])
        // The covering one takes the place of the first it covers; the others go.
        #expect(TopicFilterCover.minimal([sub("a/b"), sub("x"), sub("a/c"), sub("a/#")]) == [sub("a/#"), sub("x")])
        // Nothing covered: unchanged, in order.
        let plain = [sub("a/+/c"), sub("a/b/+"), sub("b"), sub("$SYS/#"), sub("+/x")]
        #expect(TopicFilterCover.minimal(plain + [sub("#")]) == [sub("#"), sub("$SYS/#")])
        #expect(TopicFilterCover.minimal(plain) == plain)
    }

    @Test func onlySubscriptionsOfTheSameKindCoverEachOther() {
        // A shared subscription brings a message to one replica of the group: it never stands in for another.
        let shared = [sub("$share/g/a/#", noLocal: false), sub("a/b"), sub("$share/h/a/b", noLocal: false),
                      sub("$share/g/a/b", noLocal: false)]
        #expect(TopicFilterCover.minimal(shared) == [sub("$share/g/a/#", noLocal: false), sub("a/b"),
                                                      sub("$share/h/a/b", noLocal: false)])
        // No Local differs: both stay.
        #expect(TopicFilterCover.minimal([sub("a/#"), sub("a/ack", noLocal: false)]).count == 2)
    }

    @Test func theBridgeSubscribesOnlyTheCoveringFilter() throws {
        let config = try loadConfig("""
            routes:
              - {name: offline, topic: "zigbee2mqtt/+/availability", qos: 1}
              - {name: all, topic: "zigbee2mqtt/#", qos: 0}
              - {name: other, topic: "home/+/door"}
            """)
        #expect(RouteSubscriptions.subscriptions(for: config).map(\.filter) == ["zigbee2mqtt/#", "home/+/door"])
        #expect(RouteSubscriptions.subscriptions(for: config).first?.qos == 1)
        #expect(config.warnings.isEmpty)
    }

    @Test func partlyOverlappingRoutesAreWarnedAboutOnMQTT311() throws {
        let config = try loadConfig("""
            broker: {protocol: "3.1.1"}
            routes:
              - {name: kitchen, topic: "home/kitchen/+"}
              - {name: doors, topic: "home/+/door"}
              - {name: garden, topic: "garden/+"}
            """)
        #expect(config.warnings.map(\.description) == [
            "bridge.yml:4:26: warning: route 'doors' (home/+/door) and route 'kitchen' (home/kitchen/+) overlap and neither covers the other: "
            + "the broker delivers a message on a topic both match once per subscription, and the bridge decides it twice. "
            + "Use protocol: 5 (the copies are then told apart), make one filter cover the other (it is then the only one subscribed) or make them disjoint",
        ])
        // MQTT 5: no warning, the partly overlapping subscriptions carry identifiers.
        let v5 = try loadConfig("""
            routes:
              - {name: kitchen, topic: "home/kitchen/+"}
              - {name: doors, topic: "home/+/door"}
              - {name: garden, topic: "garden/+"}
            """)
        #expect(v5.warnings.isEmpty)
        #expect(RouteSubscriptions.subscriptions(for: v5).map(\.identifier) == [1, 2, nil])
    }

    @Test func theFirstCopyIsTheLowestMatchingIdentifiers() {
        let subs = [sub("home/kitchen/+"), sub("garden/+"), sub("home/+/door"), sub("+/+/door")]
        let (out, copies) = DuplicateCopies.assign(subs, v5: true)
        // home/kitchen/+ ~ home/+/door ~ +/+/door: each partly overlaps the others; garden/+ none.
        #expect(out.map(\.identifier) == [1, nil, 2, 3])
        let c = try! #require(copies)
        #expect(c.lower == [2: ["home/kitchen/+"], 3: ["home/kitchen/+", "home/+/door"]])
        // home/kitchen/door: all three bring it; only the copy of identifier 1 is kept.
        #expect(c.isFirstCopy(topic: "home/kitchen/door", identifiers: [1]))
        #expect(!c.isFirstCopy(topic: "home/kitchen/door", identifiers: [2]))
        #expect(!c.isFirstCopy(topic: "home/kitchen/door", identifiers: [3]))
        // One copy naming every matching subscription is kept.
        #expect(c.isFirstCopy(topic: "home/kitchen/door", identifiers: [3, 1, 2]))
        // home/hall/door: identifiers 2 and 3; kitchen does not match, so 2's copy is kept.
        #expect(c.isFirstCopy(topic: "home/hall/door", identifiers: [2]))
        #expect(!c.isFirstCopy(topic: "home/hall/door", identifiers: [3]))
        #expect(c.isFirstCopy(topic: "shed/x/door", identifiers: [3]))
        #expect(c.isFirstCopy(topic: "garden/x", identifiers: []))
        // 3.1.1 has no identifiers; nothing overlapping: nothing assigned.
        #expect(DuplicateCopies.assign(subs, v5: false).1 == nil)
        #expect(DuplicateCopies.assign([sub("a/+"), sub("b/+")], v5: true).0.allSatisfy { $0.identifier == nil })
    }
}
