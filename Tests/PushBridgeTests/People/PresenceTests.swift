import Foundation
import Testing
@testable import PushBridge

/// Presence from the integrations' own payloads, staleness, and the audience a route gets.
@Suite struct PresenceTests {
    static func board() throws -> PresenceBoard {
        let config = try loadConfig(PeopleConfigTests.yaml(people: PeopleConfigTests.twoPeople))
        return PresenceBoard(people: config.people)
    }

    /// An OwnTracks `location` message (its documentation's example, with `inregions`).
    static func owntracks(_ regions: [String]) -> [UInt8] {
        let list = regions.map { "\"\($0)\"" }.joined(separator: ",")
        return Array(#"{"_type":"location","acc":13,"alt":80,"batt":73,"conn":"w","lat":52.3702,"lon":4.8952,"tid":"al","tst":1733550000,"vac":0,"vel":0,"inregions":[\#(list)]}"#.utf8)
    }

    @Test("OwnTracks: in the home region is home, elsewhere away; not JSON is unknown")
    func owntracksPayloads() throws {
        let b = try Self.board()
        #expect(b.people(of: "owntracks/alice/phone") == [0])
        #expect(b.evaluate(0, topic: "owntracks/alice/phone", payload: Self.owntracks(["home"])) == true)
        #expect(b.evaluate(0, topic: "owntracks/alice/phone", payload: Self.owntracks(["work", "gym"])) == false)
        #expect(b.evaluate(0, topic: "owntracks/alice/phone", payload: Array(#"{"_type":"location","lat":1,"lon":2}"#.utf8)) == false)
        #expect(b.evaluate(0, topic: "owntracks/alice/phone", payload: Array("garbage".utf8)) == nil)
        #expect(b.evaluate(0, topic: "owntracks/alice/phone", payload: []) == nil)
    }

    @Test("Home Assistant statestream: home and not_home as plain text; another zone is away")
    func homeAssistantPayloads() throws {
        let b = try Self.board()
        #expect(b.people(of: "homeassistant/person/bob/state") == [1])
        #expect(b.evaluate(1, topic: "homeassistant/person/bob/state", payload: Array("home".utf8)) == true)
        #expect(b.evaluate(1, topic: "homeassistant/person/bob/state", payload: Array("not_home".utf8)) == false)
        #expect(b.evaluate(1, topic: "homeassistant/person/bob/state", payload: Array("Work".utf8)) == false)
        #expect(b.people(of: "homeassistant/person/carol/state").isEmpty)
    }

    @Test("an expression that does not give a boolean is unknown")
    func notBoolean() throws {
        let config = try loadConfig(PeopleConfigTests.yaml(people: "- {name: alice, outputs: [alice-phone], presence: {topic: p/alice, home: 'payload.where'}}"))
        let b = PresenceBoard(people: config.people)
        #expect(b.evaluate(0, topic: "p/alice", payload: Array(#"{"where":"home"}"#.utf8)) == nil)
        #expect(b.evaluate(0, topic: "p/alice", payload: Array(#"{"where":true}"#.utf8)) == true)
        #expect(b.evaluate(0, topic: "p/alice", payload: Array(#"{}"#.utf8)) == nil)
    }

    @Test("since stays on a repeat; stale_after makes it unknown; the variables follow")
    func stateAndStaleness() throws {
        let b = try Self.board()
        #expect(b.entries(at: 0).map(\.state) == [.unknown, .unknown])
        #expect(b.variables(at: 0).home == 0)
        b.record(0, home: true, at: 1000)
        b.record(0, home: true, at: 2000)
        b.record(1, home: false, at: 1500)
        #expect(b.entries(at: 2500) == [PresenceBoard.Entry(name: "alice", state: .home, since: 1000),
                                        PresenceBoard.Entry(name: "bob", state: .away, since: 1500)])
        let v = b.variables(at: 2500)
        #expect(v.presence == .object(["alice": .bool(true), "bob": .bool(false)]))
        #expect(v.home == 1)
        // alice's stale_after is 12 h from her last message (2000); bob has none.
        #expect(b.entries(at: 2000 + 43_200).first?.state == .home)
        #expect(b.entries(at: 2001 + 43_200).map(\.state) == [.unknown, .away])
        #expect(b.variables(at: 2001 + 43_200).presence == .object(["alice": .null, "bob": .bool(false)]))
        // A fresh message after staleness starts a new `since`.
        let after = b.record(0, home: true, at: 50_000)
        #expect(after.before == .unknown)
        #expect(after.after.since == 50_000)
        b.record(0, home: nil, at: 50_001)
        #expect(b.entries(at: 50_002).first == PresenceBoard.Entry(name: "alice", state: .unknown, since: nil))
    }

    static let entries: [PresenceBoard.Entry] = [
        .init(name: "alice", state: .home, since: 1), .init(name: "bob", state: .away, since: 1),
        .init(name: "carol", state: .unknown, since: nil),
    ]

    @Test("audience: home, away, a list; unknown counts as matching; everyone")
    func audience() {
        #expect(AudienceChoice.choose(.everyone, whenNobody: .hold, presence: Self.entries) == .everyone)
        #expect(AudienceChoice.choose(.home, whenNobody: .hold, presence: Self.entries) == .people(["alice", "carol"]))
        #expect(AudienceChoice.choose(.away, whenNobody: .hold, presence: Self.entries) == .people(["bob", "carol"]))
        #expect(AudienceChoice.choose(.people(["bob"]), whenNobody: .hold, presence: Self.entries) == .people(["bob"]))
    }

    @Test("when_nobody: an empty home audience sends to everyone, to nobody's outputs only, or holds")
    func whenNobody() {
        let away: [PresenceBoard.Entry] = [.init(name: "alice", state: .away, since: 1), .init(name: "bob", state: .away, since: 2)]
        #expect(AudienceChoice.choose(.home, whenNobody: .everyone, presence: away) == .everyone)
        #expect(AudienceChoice.choose(.home, whenNobody: .none, presence: away) == .people([]))
        #expect(AudienceChoice.choose(.home, whenNobody: .hold, presence: away) == .hold)
        // A list is never "nobody".
        #expect(AudienceChoice.choose(.people(["alice"]), whenNobody: .hold, presence: away) == .people(["alice"]))
    }

    @Test("which outputs and subscriptions a choice reaches")
    func reaches() {
        let choice = AudienceChoice.people(["alice"])
        #expect(choice.reaches(owners: []))
        #expect(choice.reaches(owners: ["alice"]))
        #expect(choice.reaches(owners: ["alice", "bob"]))
        #expect(!choice.reaches(owners: ["bob"]))
        #expect(AudienceChoice.people([]).reaches(owners: []))
        #expect(!AudienceChoice.people([]).reaches(owners: ["bob"]))
        #expect(AudienceChoice.everyone.reaches(owners: ["bob"]))
        #expect(choice.reaches(subscriptionOf: "alice", owners: []))
        #expect(!choice.reaches(subscriptionOf: "bob", owners: []))
        #expect(choice.reaches(subscriptionOf: nil, owners: []))
        #expect(!choice.reaches(subscriptionOf: nil, owners: ["bob"]))
        #expect(AudienceChoice.everyone.reaches(subscriptionOf: "bob", owners: []))
    }
}
