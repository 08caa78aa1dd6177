import Foundation
import Testing
@testable import PushBridge

/// A bridge with two people (alice: OwnTracks, bob: Home Assistant statestream), each with an
/// ntfy topic of their own, and a hall ntfy topic that belongs to nobody; a real mosquitto and
/// a real ntfy server.
struct PeopleSetup {
    let s: Scenario
    let ntfy: NtfyServer
    let id = String(UUID().uuidString.prefix(8)).lowercased()
    let journal: String
    let http: Int

    var aliceTopic: String { "\(s.ns)/owntracks/alice/phone" }
    var bobTopic: String { "\(s.ns)/homeassistant/person/bob/state" }
    func ntfyTopic(_ who: String) -> String { "pb-\(who)-\(id)" }

    static func make() async throws -> PeopleSetup {
        PeopleSetup(s: try await Scenario.start(), ntfy: try await NtfyServer.make(), journal: try makeTempDirectory(),
                    http: try LoopbackPorts.free())
    }

    /// The bridge.yml: `routes` (indented as list items of `routes:`), alice's `stale_after`.
    func yaml(routes: String, filters: String = "", aliceStale: String = "") -> String {
        s.yaml("""
            journal: {path: \(journal)}
            routes:
            \(routes.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
            \(filters)
            outputs:
              - {name: alice-ntfy, ntfy: {url: "\(ntfy.url(ntfyTopic("alice")))"}}
              - {name: bob-ntfy, ntfy: {url: "\(ntfy.url(ntfyTopic("bob")))"}}
              - {name: hall, ntfy: {url: "\(ntfy.url(ntfyTopic("hall")))"}}
            people:
              - name: alice
                outputs: [alice-ntfy]
                presence:
                  topic: \(aliceTopic)
                  home: '"home" in (payload.inregions | default([]))'
                  \(aliceStale.isEmpty ? "" : "stale_after: \(aliceStale)")
              - name: bob
                outputs: [bob-ntfy]
                presence: {topic: \(bobTopic), home: 'raw == "home"'}
            """).replacingOccurrences(of: "monitoring:\n", with: "monitoring:\n  http: \"127.0.0.1:\(http)\"\n")
    }

    /// The titles in `who`'s ntfy topic, oldest first.
    func titles(_ who: String) throws -> [String] {
        try ntfy.messages(ntfyTopic(who)).compactMap { $0["title"]?.stringValue }
    }

    /// Waits until `who`'s topic holds `title`.
    func waitFor(_ who: String, _ title: String) async throws {
        try await eventually("\(title) for \(who); has \((try? titles(who)) ?? [])", timeout: .seconds(20)) { try titles(who).contains(title) }
    }

    /// Alice's phone reports an OwnTracks location, in the home region or not.
    func alice(home: Bool) throws {
        let regions = home ? #"["home"]"# : #"["work"]"#
        try s.observer.publish(aliceTopic, #"{"_type":"location","acc":13,"batt":73,"conn":"w","lat":52.37,"lon":4.89,"tid":"al","tst":1733550000,"inregions":\#(regions)}"#)
    }

    /// Home Assistant's statestream publishes bob's person state (retained, as it does).
    func bob(_ state: String) throws {
        try s.observer.publish(bobTopic, state, retain: true)
    }

    /// Alice's OwnTracks and Bob's statestream both say away; returns once `bridge` knows it.
    func bothAway(_ bridge: Bridge) async throws {
        try alice(home: false)
        try bob("not_home")
        try await waitForPresence(bridge, "alice", .away)
        try await waitForPresence(bridge, "bob", .away)
    }

    /// Waits until the bridge's board says `name` is `state`.
    func waitForPresence(_ bridge: Bridge, _ name: String, _ state: PresenceState) async throws {
        let board = try #require(bridge.people?.board)
        try await eventually("\(name) \(state)", timeout: .seconds(10)) {
            board.entries(at: bridge.people!.wall()).first { $0.name == name }?.state == state
        }
    }

    /// Waits until no output has deliveries pending.
    func settle(_ bridge: Bridge) async throws {
        let outputs = try #require(bridge.outputs)
        try await eventually("outputs idle", timeout: .seconds(20)) { outputs.snapshots().allSatisfy { $0.pending == 0 } }
    }

    /// `curl` GET of the monitoring server's `path`.
    func get(_ path: String) async throws -> String {
        let r = try await ManagedProcess.run("/usr/bin/curl", ["-sS", "--max-time", "10", "http://127.0.0.1:\(http)\(path)"], timeout: .seconds(20))
        return r.stdout
    }

    func stop() async throws {
        try s.observer.publish(bobTopic, "", retain: true)  // the retained state goes with the test
        await ntfy.stop()
    }
}
