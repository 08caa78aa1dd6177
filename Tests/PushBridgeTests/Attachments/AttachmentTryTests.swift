import Foundation
import Testing
@testable import PushBridge

/// `pushbridge try --attach NAME=FILE`: a sample supplies the bytes; text and JSON show each
/// attachment with its source, type and size, or why it was not attached.
@Suite("pushbridge try --attach")
struct AttachmentTryTests {
    static let yaml = """
        routes:
          - name: door
            topic: door/ring
            alert: {title: Door}
            attachments:
              - {identifier: snapshot, from_topic: "cam/{{ payload.cam }}/snapshot"}
              - {identifier: clip, url: "http://127.0.0.1:9/clips/{{ payload.cam }}.mp4"}
        """

    @Test func theFileStandsInForTheSource() async throws {
        let file = try writeTempFile(Self.yaml)
        let png = try writeTempFile("", name: "front.png")
        try Data(AttachmentGatherTests.png).write(to: URL(fileURLWithPath: png))
        let r = try await ManagedProcess.run(PushbridgeBinary.path, ["try", "-c", file, "-t", "door/ring", "-m", #"{"cam":"front"}"#,
                                                                    "--attach", "snapshot=\(png)", "--json"])
        #expect(r.exitedNormally && r.status == 0, "\(r.stderr)")
        let d = try JSONValue.parse(r.stdout)
        guard case .array(let list)? = d["attachments"] else { Issue.record("no attachments: \(r.stdout)"); return }
        #expect(list.first?["attached"] == .bool(true) && list.first?["type"] == .string("image/png")
                && list.first?["size"] == .int(Int64(AttachmentGatherTests.png.count)))
        #expect(list.first?["source"] == .string("--attach \(png)"))
        #expect(list.last?["attached"] == .bool(false) && list.last?["reason"] == .string("FetchFailed"))
        #expect(list.last?["detail"]?.stringValue?.contains("--attach clip=FILE") == true)
        #expect(d["display"]?["payload"]?["attachments"] != nil)
        let text = try await ManagedProcess.run(PushbridgeBinary.path, ["try", "-c", file, "-t", "door/ring", "-m", #"{"cam":"front"}"#,
                                                                       "--attach", "snapshot=\(png)"])
        #expect(text.stdout.contains("attach    snapshot: image/png, \(AttachmentGatherTests.png.count) bytes"), "\(text.stdout)")
        let bad = try await ManagedProcess.run(PushbridgeBinary.path, ["try", "-c", file, "-t", "door/ring", "-m", "{}",
                                                                      "--attach", "snapshot"])
        #expect(bad.status == 2 && bad.stderr.contains("--attach needs NAME=FILE"), "\(bad.stderr)")
        let missing = try await ManagedProcess.run(PushbridgeBinary.path, ["try", "-c", file, "-t", "door/ring", "-m", "{}",
                                                                          "--attach", "snapshot=/nonexistent.png"])
        #expect(missing.status == 2 && missing.stderr.contains("cannot read attachment file"), "\(missing.stderr)")
    }
}
