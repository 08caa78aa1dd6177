import Testing
@testable import PushBridge

/// A reload and the people: the routes' audiences change at once; a changed `people:` section
/// needs a restart (warned, the running people kept).
@Suite struct PeopleReloadTests {
    static func config(audience: String, bobOutputs: String) -> String {
        """
        routes:
          - {name: doorbell, topic: home/doorbell, audience: \(audience)}
        outputs:
          - {name: alice-phone, ntfy: {url: "http://127.0.0.1:9/alice"}}
          - {name: bob-phone, ntfy: {url: "http://127.0.0.1:9/bob"}}
        people:
          - {name: alice, outputs: [alice-phone], presence: {topic: p/alice, home: 'raw == "home"'}}
          - {name: bob, outputs: [\(bobOutputs)]}
        """
    }

    @Test("a new audience applies at once; a changed people section warns and is kept")
    func reload() async throws {
        let b = try InProcessBridge.make(config: try loadConfig(Self.config(audience: "everyone", bobOutputs: "bob-phone")),
                                         logger: BridgeLogger(level: .error, sink: { _ in }))
        defer { b.pipeline.shutdown() }
        let desk = try #require(b.people)
        #expect(desk.choice(for: "doorbell") == .everyone)
        guard case .applied(let warnings) = await b.apply(try loadConfig(Self.config(audience: "[alice]", bobOutputs: "bob-phone, alice-phone"))) else {
            Issue.record("reload refused"); return
        }
        #expect(warnings.contains("the people section changed; restart pushbridge to use it"))
        #expect(desk.choice(for: "doorbell") == .people(["alice"]))
        #expect(b.pipeline.config.people[1].outputs == ["bob-phone"])
        #expect(desk.owners["alice-phone"] == ["alice"])
    }
}
