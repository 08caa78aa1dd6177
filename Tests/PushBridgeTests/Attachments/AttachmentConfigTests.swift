import Foundation
import Testing
@testable import PushBridge

/// `attachments:` on a route and at the top level: what loads, and each mistake with its
/// position.
@Suite struct AttachmentConfigTests {
    static func load(_ yaml: String) -> Result<BridgeConfig, ConfigErrors> {
        ConfigLoader.load(text: yaml, path: "bridge.yml", environment: [:])
    }

    static func errors(_ yaml: String) -> [ConfigError] {
        if case .failure(let e) = load(yaml) { return e.errors }
        return []
    }

    static let route = """
        routes:
          - name: person
            topic: frigate/reviews
            attachments:
        """

    @Test func routeAndTopLevelLoad() throws {
        let yaml = Self.route + """

                  - identifier: snapshot
                    from_topic: "frigate/{{ payload.after.camera }}/person/snapshot"
                    max_age: 30s
                  - url: "http://frigate:5000/api/events/{{ payload.after.id }}/clip.mp4"
                    headers: {X-Api-Key: abc}
            attachments:
              wait: 3s
              max_bytes: {image: 5MB, video: 20MiB}
              keep: 2h
              total_bytes: 100MB
              public_url: https://bridge.example.com:9464/
            """
        let config = try Self.load(yaml).get()
        let specs = config.routes[0].attachments
        #expect(specs.map(\.identifier) == ["snapshot", "attachment-2"])
        guard case .topic(_, let filter) = specs[0].source else { Issue.record("not a topic source"); return }
        #expect(filter == "frigate/+/person/snapshot")
        #expect(specs[0].maxAge == .seconds(30))
        #expect(specs[1].headers.map(\.name) == ["X-Api-Key"])
        #expect(config.attachments.wait == .seconds(3) && config.attachments.keep == .seconds(7200))
        #expect(config.attachments.maxImage == 5_000_000 && config.attachments.maxVideo == 20 * 1_048_576)
        #expect(config.attachments.maxAudio == 5_000_000)
        #expect(config.attachments.totalBytes == 100_000_000)
        #expect(config.attachments.publicURL == "https://bridge.example.com:9464")
        #expect(config.attachmentTopicFilters == ["frigate/+/person/snapshot"])
        #expect(RouteSubscriptions.subscriptions(for: config).contains { $0.filter == "frigate/+/person/snapshot" && $0.qos == 0 })
    }

    @Test func defaultsAreApplesLimits() throws {
        let config = try Self.load(Self.route + "\n      - from_topic: cam/snapshot\n").get()
        #expect(config.attachments == AttachmentsConfig())
        #expect(config.attachments.maxImage == 10_000_000 && config.attachments.maxAudio == 5_000_000
                && config.attachments.maxVideo == 50_000_000 && config.attachments.wait == .seconds(5))
        #expect(config.routes[0].attachments[0].maxAge == .seconds(60))
    }

    @Test func aHolePartlyInALevelSubscribesTheWholeLevel() throws {
        let config = try Self.load(Self.route + "\n      - from_topic: \"cams/cam_{{ payload.id }}/snap\"\n").get()
        guard case .topic(_, let filter) = config.routes[0].attachments[0].source else { Issue.record("no topic"); return }
        #expect(filter == "cams/+/snap")
    }

    @Test(arguments: [
        "http://{{ payload.host }}/snap.jpg",
        "http://frigate:{{ payload.port }}/snap.jpg",
        "{{ payload.url }}",
        "http{{ payload.s }}://frigate/snap.jpg",
        "http://fri{{ payload.x }}gate/snap.jpg",
    ])
    func aHoleInSchemeHostOrPortIsRefused(url: String) {
        let errors = Self.errors(Self.route + "\n      - url: \"\(url)\"\n")
        #expect(errors.count == 1 && errors[0].line == 5, "\(errors)")
        #expect(errors.first?.message.contains("never which server") == true, "\(errors)")
    }

    @Test(arguments: ["ftp://frigate/snap.jpg", "file:///etc/passwd", "frigate/snap.jpg", "http:///snap.jpg"])
    func onlyHTTPURLsWithAHost(url: String) {
        let errors = Self.errors(Self.route + "\n      - url: \"\(url)\"\n")
        #expect(errors.count == 1 && errors[0].message.contains("http:// or https://"), "\(errors)")
    }

    @Test func mistakesArePositioned() {
        let yaml = Self.route + """

                  - identifier: snap
                    from_topic: a/snap
                  - identifier: snap
                    from_topic: b/snap
                  - identifier: "bad/name"
                    from_topic: c/snap
                  - identifier: both
                    from_topic: d/snap
                    url: http://x/y
                  - identifier: neither
                  - from_topic: e/snap
                    headers: {A: b}
                  - url: http://x/{{ payload.id }}
                    max_age: 10s
                  - from_topic: "f/#/g"
                  - from_topic: g/snap
                    max_agee: 1s
            attachments:
              max_bytes: {image: lots}
              wiat: 2s
            """
        let errors = Self.errors(yaml)
        let lines = errors.map(\.line)
        #expect(errors.contains { $0.line == 7 && $0.message.contains("used twice (first at line 5)") }, "\(errors)")
        #expect(errors.contains { $0.line == 9 && $0.message.contains("'identifier' must be") }, "\(errors)")
        #expect(errors.contains { $0.line == 13 && $0.message.contains("not both") }, "\(errors)")
        #expect(errors.contains { $0.line == 14 && $0.message.contains("needs 'from_topic'") }, "\(errors)")
        #expect(errors.contains { $0.line == 16 && $0.message.contains("'headers' applies to 'url' only") }, "\(errors)")
        #expect(errors.contains { $0.line == 18 && $0.message.contains("'max_age' applies to 'from_topic' only") }, "\(errors)")
        #expect(errors.contains { $0.line == 19 && $0.message.contains("invalid 'from_topic'") }, "\(errors)")
        #expect(errors.contains { $0.line == 21 && $0.message.contains("max_age") && $0.message.contains("did you mean") }, "\(errors)")
        #expect(errors.contains { $0.line == 23 && $0.message.contains("a size such as 10MB") }, "\(errors)")
        #expect(errors.contains { $0.line == 24 && $0.message.contains("did you mean 'wait'") }, "\(errors)")
        #expect(lines.count == 10, "\(errors)")
    }

    @Test func aTokenFileIsReadAndNeverShown() throws {
        let token = try writeTempFile("s3cret-token-value\n", name: "token")
        let yaml = Self.route + "\n      - url: http://frigate:5000/api/x.jpg\n        token_file: \(token)\n"
        let config = try Self.load(yaml).get()
        #expect(config.routes[0].attachments[0].headers.map(\.value) == ["Bearer s3cret-token-value"])
        #expect(!config.describe().contains("s3cret") && config.describe().contains("token: ***"))
        let missing = Self.errors(Self.route + "\n      - url: http://frigate/x.jpg\n        token_file: /nonexistent/token\n")
        #expect(missing.count == 1 && missing[0].message.contains("cannot read 'token_file'"))
    }

    @Test func setAttachmentsTakesAListOfIdentifiers() throws {
        let yaml = Self.route + """

                  - from_topic: cam/snap
            extension:
              filters:
                - name: drop
                  set: {attachments: []}
                - name: keep
                  set: {attachments: [snapshot, "2"]}
                - name: bad
                  set: {attachments: {snapshot: true}}
            """
        let errors = Self.errors(yaml)
        #expect(errors.count == 1 && errors[0].line == 13 && errors[0].message.contains("'attachments' must be"), "\(errors)")
    }

    @Test func pipesJoinAndLength() throws {
        let context = MessageContext(topic: "a/b", payload: .object(["list": .array([.string("x"), .int(2)]),
                                                                      "o": .object(["k": .int(1)])]), raw: "", route: "r")
        #expect(try Template.parse("{{ payload.list | join(', ') }}").render(in: context) == "x, 2")
        #expect(try Template.parse("{{ payload.list | length }}|{{ payload.o | length }}|{{ payload.none | length }}|{{ 'héllo' | length }}").render(in: context)
                == "2|1|0|5")
        #expect(try Template.parse("{{ payload.o | join('-') }}").render(in: context) == "{\"k\":1}")
    }
}
