import Testing
@testable import PushBridge

/// SIGHUP and the sections that need a restart (docs/operations.md, "Reload (SIGHUP)"): a
/// reload compares each as a whole value, so any field changed there warns, and the running
/// bridge keeps the section it started with.
@Suite struct RestartSectionsReloadTests {
    static let routes = "routes:\n  - {name: a, topic: a/#, condition: {key: \"{{ topic }}\", active: \"payload.on\"}}\n"

    /// The reload's restart warnings (the file's own warnings left out), and the config running after it.
    func reload(from old: String, to new: String) async throws -> ([String], BridgeConfig) {
        let b = try InProcessBridge.make(config: try loadConfig(Self.routes + old), logger: BridgeLogger(level: .error, sink: { _ in }))
        defer { b.pipeline.shutdown() }
        guard case .applied(let warnings) = await b.apply(try loadConfig(Self.routes + new)) else {
            Issue.record("reload refused"); return ([], b.pipeline.config)
        }
        return (warnings.filter { $0.hasSuffix("restart pushbridge to use it") }, b.pipeline.config)
    }

    static func warning(_ section: String) -> [String] { ["\(section) changed; restart pushbridge to use it"] }

    @Test func aChangedJournalLimitNeedsARestart() async throws {
        let dir = TempJournalDirectory()
        let (result, running) = try await reload(from: "journal: {path: \(dir.path), max_messages: 100}\n",
                                                 to: "journal: {path: \(dir.path), max_messages: 5000}\n")
        #expect(result == Self.warning("the journal section"))
        #expect(running.journal?.maxMessages == 100)
    }

    @Test func brokerFieldsAreComparedOneByOneNotAsJoinedText() async throws {
        // Joined with '|', these two were the same text: user "a|b" password "c", user "a" password "b|c".
        let (result, running) = try await reload(from: "broker: {username: \"a|b\", password: c}\n",
                                                 to: "broker: {username: a, password: \"b|c\"}\n")
        #expect(result == Self.warning("the broker section"))
        #expect(running.broker.username == "a|b")
    }

    @Test func aChangedOutputNeedsARestart() async throws {
        let (result, running) = try await reload(from: "outputs: [{name: phone, ntfy: {url: \"http://127.0.0.1:9/a\"}}]\n",
                                                 to: "outputs: [{name: phone, ntfy: {url: \"http://127.0.0.1:9/b\"}}]\n")
        #expect(result == Self.warning("the outputs section"))
        guard case .ntfy(let ntfy)? = running.outputs.first?.kind else { Issue.record("no ntfy output"); return }
        #expect(ntfy.url == "http://127.0.0.1:9/a")
    }

    @Test func aChangedAckTopicNeedsARestart() async throws {
        let (result, running) = try await reload(from: "conditions: {ack_topic: p/ack}\n", to: "conditions: {ack_topic: p/answers}\n")
        #expect(result == Self.warning("the conditions section"))
        #expect(running.conditions?.ackTopic == "p/ack")
    }

    @Test func unchangedSectionsWarnOfNothing() async throws {
        let dir = TempJournalDirectory()
        let all = """
            broker: {username: u, password: p}
            journal: {path: \(dir.path)}
            outputs: [{name: hook, webhook: {url: "http://127.0.0.1:9/h", headers: {X-A: "1"}, body: "{{ message.title }}"}}]
            conditions: {ack_topic: p/ack}

            """
        #expect(try await reload(from: all, to: all).0 == [])
    }
}
