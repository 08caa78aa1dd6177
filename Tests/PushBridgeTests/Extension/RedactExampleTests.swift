import Foundation
import Testing
@testable import PushBridge

/// Runs examples/extensions/redact.py through the real stage.
@Suite("examples/extensions/redact.py")
struct RedactExampleTests {
    static let key = "k3y!"
    static var script: String {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("examples/extensions/redact.py").path
    }

    static func stage(key: String? = RedactExampleTests.key, granted: Bool = true) -> ExtensionStage {
        var command = ["python3", script]
        if let key { command = ["env", "PUSHBRIDGE_DEMO_KEY=\(key)"] + command }
        let config = StageFixtures.config(timeLimit: .seconds(60), command: command)
        return ExtensionStage(config: config, filteringGranted: granted, logger: BridgeLogger(level: .error))
    }

    static func encrypt(_ text: String, key: String) -> String {
        let k = Array(key.utf8)
        let bytes = Array(text.utf8).enumerated().map { $0.element ^ k[$0.offset % k.count] }
        return Data(bytes).base64EncodedString()
    }

    @Test func redactsCodes() async {
        let stage = Self.stage()
        defer { stage.shutdown() }
        let request = StageFixtures.request(StageFixtures.content(title: "Login", body: "Your code is 123456, ref 12"))
        let result = await stage.run(request)
        #expect(result.deliveredContent?.body == "Your code is ••••••, ref 12")
        #expect(result.modified)
    }

    @Test func decryptsThenRedacts() async {
        let stage = Self.stage()
        defer { stage.shutdown() }
        let secret = Self.encrypt("Door code 4711 — welcome home", key: Self.key)
        let content = StageFixtures.content(title: "Front door", body: secret,
                                            userInfo: .object(["encrypted": .bool(true), "room": .string("hall")]))
        let result = await stage.run(StageFixtures.request(content))
        #expect(result.deliveredContent?.body == "Door code •••• — welcome home")
        #expect(result.deliveredContent?.userInfo == .object(["room": .string("hall")]))
    }

    @Test func withoutKeyHidesCiphertext() async {
        let stage = Self.stage(key: nil)
        defer { stage.shutdown() }
        let content = StageFixtures.content(body: Self.encrypt("hi", key: Self.key),
                                            userInfo: .object(["encrypted": .bool(true)]))
        let result = await stage.run(StageFixtures.request(content))
        #expect(result.deliveredContent?.body == "(encrypted message)")
    }

    @Test(arguments: [true, false])
    func silentIsSuppressedOnlyWithTheEntitlement(granted: Bool) async {
        let stage = Self.stage(granted: granted)
        defer { stage.shutdown() }
        let request = StageFixtures.request(StageFixtures.content(userInfo: .object(["silent": .bool(true)])))
        let result = await stage.run(request)
        if granted {
            #expect(result.verdict == .suppressed(decidedBy: "command"))
        } else {
            #expect(result.verdict == .deliver(request.content, modified: false))
        }
    }
}
