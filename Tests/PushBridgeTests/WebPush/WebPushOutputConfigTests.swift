import Foundation
import Testing
@testable import PushBridge

/// `outputs[].webpush` as the outputs list reads it: the third kind, its `check` line (the
/// token file, never the token), `monitoring.http` required, one webpush output at most.
@Suite struct WebPushOutputConfigTests {
    static let token = "wp-secret-token-0123456789"

    /// A directory holding the token file, and the `routes:`/`monitoring:` head of a config.
    static func setup(http: Bool = true) throws -> (dir: String, head: String) {
        let dir = try makeTempDirectory()
        try (token + "\n").write(toFile: dir + "/token", atomically: true, encoding: .utf8)
        let head = """
            routes:
              - {name: door, topic: home/+/door, alert: {title: Door}}
            \(http ? "monitoring: {http: \"127.0.0.1:8099\"}" : "monitoring: {log_level: info}")

            """
        return (dir, head)
    }

    static func webpush(_ name: String) -> String {
        "  - name: \(name)\n    webpush: {vapid_key_file: vapid.pem, subject: \"mailto:ops@example.com\", subscribe_token_file: token}\n"
    }

    @Test func readsTheKindAndDescribesItWithoutTheToken() throws {
        let (dir, head) = try Self.setup()
        let config = try loadConfig(head + "outputs:\n" + Self.webpush("browsers") + "    routes: [door]\n", path: dir + "/bridge.yml")
        #expect(config.outputs.count == 1)
        guard case .webpush(let w)? = config.outputs.first?.kind else { Issue.record("not webpush"); return }
        #expect(config.outputs[0].kind.key == "webpush")
        #expect(config.outputs[0].routes == ["door"])
        #expect(w.vapidKeyFile == dir + "/vapid.pem")
        #expect(w.subject == "mailto:ops@example.com")
        #expect(w.subscribeTokenFile == dir + "/token")
        #expect(w.subscribeToken == Self.token)
        let lines = config.describeOutputs()
        #expect(lines.contains("  1. browsers: webpush vapid_key_file=\(dir)/vapid.pem subject=mailto:ops@example.com subscribe_token_file=\(dir)/token"),
                "\(lines)")
        #expect(!config.describe().contains(Self.token))
    }

    @Test func needsMonitoringHTTP() throws {
        let (dir, head) = try Self.setup(http: false)
        switch ConfigLoader.load(text: head + "outputs:\n" + Self.webpush("browsers"), path: dir + "/bridge.yml", environment: [:]) {
        case .success: Issue.record("loaded without monitoring.http")
        case .failure(let errors):
            #expect(errors.errors.map(\.description) == [
                "\(dir)/bridge.yml:6:5: error: output 'browsers': 'webpush' needs 'monitoring.http' (browsers subscribe on its /subscribe page)",
            ])
        }
    }

    @Test func atMostOneWebPushOutputAndAllProblemsInOneRun() throws {
        let (dir, head) = try Self.setup()
        let yaml = head + "outputs:\n" + Self.webpush("browsers") + Self.webpush("more")
            + "  - name: typo\n    webpush: {vapid_key_file: v.pem, subjct: \"mailto:a@b.c\", subscribe_token_file: token}\n"
        switch ConfigLoader.load(text: yaml, path: dir + "/bridge.yml", environment: [:]) {
        case .success: Issue.record("loaded with two webpush outputs")
        case .failure(let errors):
            #expect(errors.errors.map(\.description) == [
                "\(dir)/bridge.yml:8:5: error: output 'more' is a second 'webpush' output (the first at line 6): one Web Push output serves every subscription",
                "\(dir)/bridge.yml:10:5: error: output 'typo' is a second 'webpush' output (the first at line 6): one Web Push output serves every subscription",
            ], "\(errors)")
        }
    }

    @Test func unknownKeyGetsADidYouMean() throws {
        let (dir, head) = try Self.setup()
        let yaml = head + "outputs:\n  - name: b\n    webpush: {vapid_key_file: v.pem, subjct: \"mailto:a@b.c\", subscribe_token_file: token}\n"
        switch ConfigLoader.load(text: yaml, path: dir + "/bridge.yml", environment: [:]) {
        case .success: Issue.record("loaded with a typo")
        case .failure(let errors):
            let text = errors.errors.map(\.description)
            #expect(text.contains { $0.hasPrefix("\(dir)/bridge.yml:6:38: error: unknown key 'subjct' in webpush; did you mean 'subject'?") }, "\(text)")
            #expect(text.contains { $0.contains("'webpush' needs 'subject'") }, "\(text)")
        }
    }
}
