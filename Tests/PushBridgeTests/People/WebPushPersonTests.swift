import Foundation
import Testing
@testable import PushBridge

/// Web Push subscriptions that belong to a person: the subscription API checks the name, the
/// journal keeps it, and an audience reaches only its people's subscriptions (and those of nobody).
@Suite("People: Web Push subscriptions of a person", .serialized)
struct WebPushPersonTests {
    static let token = "wp-person-token-0123456789abcdef"

    func body(_ n: Int, person: String?) throws -> [UInt8] {
        let point = Base64URL.encode(try P256Key.generate().publicPoint)
        let auth = Base64URL.encode([UInt8](repeating: UInt8(n), count: 16))
        let who = person.map { #","person":"\#($0)""# } ?? ""
        return Array(#"{"endpoint":"https://push.example.net/\#(n)","expirationTime":null,"keys":{"p256dh":"\#(point)","auth":"\#(auth)"}\#(who)}"#.utf8)
    }

    @Test("the person is checked (400 names the people), stored in the journal, and filters the deliveries by audience")
    func subscriptionsOfPeople() async throws {
        let dir = try makeTempDirectory()
        try (Self.token + "\n").write(toFile: dir + "/token", atomically: true, encoding: .utf8)
        let config = try loadConfig("""
            journal: {path: \(try makeTempDirectory())}
            monitoring: {http: "127.0.0.1:\(try LoopbackPorts.free())"}
            routes:
              - {name: doorbell, topic: home/doorbell, audience: [alice]}
              - {name: all, topic: home/all}
            outputs:
              - name: browsers
                webpush: {vapid_key_file: \(dir)/vapid.pem, subject: "mailto:ops@example.com", subscribe_token_file: \(dir)/token}
            people:
              - {name: alice, outputs: [browsers]}
              - {name: bob, outputs: [browsers]}
            """)
        let journal = try Journal(config: config.journal!)
        let people = PeopleDesk(config: config, journal: journal, logger: BridgeLogger(level: .error), wall: { 0 })
        let renderer = DisplayRenderer(display: config.display, deadLetter: nil, userProperties: true, hop: ("h", "v"))
        let outputs = try #require(try OutputSet(config: config, journal: journal, renderer: renderer, people: people,
                                                 logger: BridgeLogger(level: .error)) { _ in })
        let endpoints = try #require(outputs.webPushEndpoints(logger: BridgeLogger(level: .error)))
        let auth = "Bearer \(Self.token)"
        func post(_ body: [UInt8]) -> HTTPResponse? {
            endpoints.respond(method: "POST", path: WebPushEndpoints.subscriptionsPath, authorization: auth, body: body)
        }
        let refused = post(try body(9, person: "carol"))
        #expect(refused?.status == 400)
        let why = refused?.body ?? ""
        #expect(why.contains("'person' \"carol\" is not a configured person: the people are alice, bob"))
        #expect(post(try body(1, person: "alice"))?.status == 201)
        #expect(post(try body(2, person: "bob"))?.status == 201)
        #expect(post(try body(3, person: nil))?.status == 201)
        let list = endpoints.respond(method: "GET", path: WebPushEndpoints.peoplePath, authorization: auth, body: nil)
        #expect(list.map { String(decoding: $0.bytes, as: UTF8.self) } == #"{"people":["alice","bob"]}"#)
        #expect(endpoints.respond(method: "GET", path: WebPushEndpoints.peoplePath, authorization: nil, body: nil)?.body == #"{"people":[]}"#)

        // Kept in the journal (a fresh store reads them back).
        let store = try JournalSubscriptionStore(journal: journal, output: "browsers")
        #expect(try store.all().map(\.person) == ["alice", "bob", nil])

        // An audience of alice: her subscription, not bob's; one of nobody follows the output's
        // owners (alice and bob), so it gets it too. Without an audience: every subscription.
        let item = OutputItem(alertID: "a1", route: "doorbell", displayJSON: Array(#"{"title":"Door"}"#.utf8))
        let targets = outputs.deliveryRows(for: item, audience: people!.choice(for: "doorbell")).0.map(\.target)
        #expect(targets == ["https://push.example.net/1", "https://push.example.net/3"])
        let all = OutputItem(alertID: "a2", route: "all", displayJSON: Array(#"{"title":"All"}"#.utf8))
        #expect(outputs.deliveryRows(for: all, audience: people!.choice(for: "all")).0.count == 3)
    }
}
