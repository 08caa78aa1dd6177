import Testing
@testable import PushBridge
@testable import PushBridgeCLI

/// `digest:` on a route: defaults, positioned errors, did-you-mean, the warning without a
/// journal, and what `pushbridge check` prints.
@Suite("Digests: config")
struct DigestConfigTests {
    static func yaml(_ digest: String, journal: Bool = true) -> String {
        """
        routes:
          - name: device-offline
            topic: zigbee2mqtt/+/availability
            alert: {title: "{{ levels[1] }} offline"}
            digest: \(digest)
        \(journal ? "journal: {path: /tmp/x}" : "")
        """
    }

    @Test func fullDigestLoads() throws {
        let config = try loadConfig(Self.yaml(#"{window: 2m, max: 5, key: "{{ levels[1] }}", title: "{{ digest.count }} devices offline", body: "{{ digest.titles | join(', ') }}"}"#))
        let d = try #require(config.routes[0].digest)
        #expect(d.window == .seconds(120) && d.max == 5 && d.key.source == "{{ levels[1] }}")
        #expect(d.title?.source == "{{ digest.count }} devices offline" && d.body?.source == "{{ digest.titles | join(', ') }}")
    }

    @Test func defaults() throws {
        let d = try #require(try loadConfig(Self.yaml("{}")).routes[0].digest)
        #expect(d.window == .seconds(300) && d.max == 3 && d.key.source == "{{ route }}" && d.title == nil && d.body == nil)
        #expect(try loadConfig(Self.yaml("{max: 0}")).routes[0].digest?.max == 0)
    }

    @Test func badValuesArePositionedErrors() {
        #expect(configErrors(Self.yaml("{window: 0}")) == ["bridge.yml:5:22: error: 'window' must be greater than 0, got 0"])
        #expect(configErrors(Self.yaml("{max: -1}")) == ["bridge.yml:5:19: error: 'max' must be at least 0, got -1"])
        #expect(configErrors(Self.yaml("{window: soon}")).first?.contains("'window' must be a duration") == true)
        #expect(configErrors(Self.yaml("{windwo: 2m}")) == ["bridge.yml:5:14: error: unknown key 'windwo' in digest; did you mean 'window'?"])
        #expect(configErrors(Self.yaml(#"{title: "{{ digest.count "}"#)).first?.hasPrefix("bridge.yml:5:") == true)
    }

    @Test func withoutAJournalCheckWarns() throws {
        let warnings = try loadConfig(Self.yaml("{window: 2m}", journal: false)).warnings.map(\.description)
        #expect(warnings.contains { $0.contains("route 'device-offline' has a digest but there is no 'journal'") })
        #expect(try loadConfig(Self.yaml("{window: 2m}")).warnings.isEmpty)
    }

    @Test func checkShowsTheDigest() throws {
        let text = try loadConfig(Self.yaml(#"{window: 2m, title: "{{ digest.count }} offline"}"#)).describe()
        #expect(text.contains(#"digest: per key "{{ route }}" a window of 2m: the first 3 delivered one by one, the rest held and sent as one summary titled "{{ digest.count }} offline"; critical alerts are never held"#), "\(text)")
    }
}
