import Testing
@testable import PushBridge

@Suite struct RouteTableTests {
    func table(_ filters: [String]) -> RouteTable {
        RouteTable(routes: filters.enumerated().map { RouteConfig(name: "r\($0.offset)", topic: $0.element) })
    }

    @Test(arguments: [
        ("a/b", "a/b", true), ("a/b", "a/c", false), ("a/b", "a/b/c", false), ("a/b", "a", false),
        ("a/+", "a/b", true), ("a/+", "a/", true), ("a/+", "a", false), ("a/+", "a/b/c", false),
        ("+/+", "a/b", true), ("+", "a", true), ("+", "/a", false), ("/+", "/a", true),
        ("a/#", "a", true), ("a/#", "a/b/c", true), ("a/#", "b", false), ("#", "a/b", true),
        ("#", "/", true), ("#", "$SYS/x", false), ("+/x", "$SYS/x", false), ("$SYS/#", "$SYS/x", true),
        ("a/+/c", "a/b/c", true), ("a/+/c", "a/b/d", false), ("a//b", "a//b", true), ("a/+/b", "a//b", true),
        ("home/+/doorbell", "home/front/doorbell", true), ("home/+/doorbell", "home/front/doorbell/x", false),
    ])
    func matchesLikeMQTT(filter: String, topic: String, expected: Bool) {
        #expect((table([filter]).match(topic) != nil) == expected, "\(filter) vs \(topic)")
    }

    @Test func firstRouteInFileOrderWins() {
        let t = table(["a/#", "a/b", "+/b", "#"])
        #expect(t.match("a/b")?.name == "r0")
        #expect(t.match("x/b")?.name == "r2")
        #expect(t.match("x/y")?.name == "r3")
        let u = table(["a/b", "a/#", "#"])
        #expect(u.match("a/b")?.name == "r0")
        #expect(u.match("a/c")?.name == "r1")
        #expect(u.match("a")?.name == "r1")
    }

    @Test func theFirstMatchAfterAGivenRoute() {
        let t = table(["a/#", "x", "a/+", "#", "a/b", "a/+"])
        #expect(t.matchIndex("a/b") == 0)
        #expect(t.matchIndex("a/b", after: 0) == 2)
        #expect(t.matchIndex("a/b", after: 2) == 3)
        #expect(t.matchIndex("a/b", after: 3) == 4)
        #expect(t.matchIndex("a/b", after: 4) == 5)
        #expect(t.matchIndex("a/b", after: 5) == nil)
        #expect(t.matchIndex("x", after: 1) == 3)
        #expect(t.matchIndex("$SYS/x", after: -1) == nil)
        // Brute force over every start.
        let topics = ["a", "a/b", "a/c", "x", "a/b/c", "b"]
        for topic in topics {
            for after in -1..<6 {
                let expected = t.routes.indices.first { $0 > after && TopicFilter.matches(filter: t.routes[$0].topic, topic: topic) }
                #expect(t.matchIndex(topic, after: after) == expected, "\(topic) after \(after)")
            }
        }
    }

    @Test func continueHandsOnToTheNextMatchingRoute() {
        var routes = ["z/#", "z/+/availability", "home/#", "z/#"].enumerated().map { RouteConfig(name: "r\($0.offset)", topic: $0.element) }
        routes[0].continueMatching = true
        routes[1].continueMatching = true
        let t = RouteTable(routes: routes)
        #expect(t.continuation(after: 0, topic: "z/hall/availability") == 1)
        #expect(t.continuation(after: 1, topic: "z/hall/availability") == 3)
        #expect(t.continuation(after: 3, topic: "z/hall/availability") == nil)  // r3 has no continue
        #expect(t.continuation(after: 0, topic: "z/hall") == 3)
        #expect(t.continuation(after: 2, topic: "home/x") == nil)
        #expect(t.entry(named: "r2")?.route.topic == "home/#" && t.entry(named: "nope") == nil)
    }

    @Test func unroutedWhenNothingMatches() {
        #expect(table(["a/b", "c/+"]).match("d") == nil)
    }

    @Test func thousandsOfRoutes() {
        let t = table((0..<2000).map { "site/\($0)/+/state" } + ["#"])
        #expect(t.match("site/1234/lamp/state")?.name == "r1234")
        #expect(t.match("site/99999/lamp/state")?.name == "r2000")
    }

    /// Nodes with few literal children compare levels in turn, nodes with many look them up;
    /// both give the first matching route in file order, as `TopicFilter.matches` decides it
    /// (canonically equivalent levels included).
    @Test func levelsCompareByteForByteAsMQTTDoes() {
        let decomposed = "e\u{301}", precomposed = "\u{E9}"
        #expect(decomposed == precomposed)  // Swift's canonical equivalence, which MQTT does not use
        #expect(table(["home/\(precomposed)/x"]).match("home/\(decomposed)/x") == nil)
        #expect(table(["home/\(precomposed)/x"]).match("home/\(precomposed)/x") != nil)
        #expect(!TopicFilter.matches(filter: "home/\(decomposed)/+", topic: "home/\(precomposed)/x"))
        // More siblings than are searched in turn: the hashed children, byte for byte too.
        let many = table((0..<12).map { "home/s\($0)/x" } + ["home/\(precomposed)/x", "home/\(decomposed)/x"])
        #expect(many.matchIndex("home/\(decomposed)/x") == 13)
        #expect(many.matchIndex("home/\(precomposed)/x") == 12)
        #expect(many.matchIndex("home/s11/x") == 11)
        #expect(many.matchIndex("home/s12/x") == nil)
    }

    @Test func fewAndManyChildrenMatchLikeTheReference() {
        let decomposed = "e\u{301}", precomposed = "\u{E9}"
        for siblings in [1, 2, 7, 8, 9, 20] {
            var filters = (0..<siblings).map { "home/s\($0)/+" }
            filters += ["home/\(precomposed)/x", "+/s3/#", "home/#"]
            let t = table(filters)
            var topics = (0..<(siblings + 2)).map { "home/s\($0)/lamp" }
            topics += ["home/\(decomposed)/x", "home/\(precomposed)/x", "x/s3/y", "home", "home/s1", "other", "$SYS/s3/x"]
            for topic in topics {
                let expected = filters.firstIndex { TopicFilter.matches(filter: $0, topic: topic) }
                #expect(t.matchIndex(topic) == expected, "\(siblings) siblings, \(topic)")
            }
        }
    }
}
