import Foundation
import Testing
@testable import PushBridge

/// A Swift extension and the external process see the gathered attachments (identifier,
/// type, size, the stored file) and may keep fewer, never add one.
@Suite struct AttachmentExtensionTests {
    static let yaml = """
        monitoring: {http: "127.0.0.1:9464"}
        routes:
          - name: door
            topic: door/ring
            alert: {title: "Door"}
            attachments:
              - {identifier: front, from_topic: cam/front}
              - {identifier: back, from_topic: cam/back}
        %EXTENSION%
        """

    static func pipeline(_ yaml: String, serviceExtension: ExtensionFactory? = nil) throws -> (Pipeline, AttachmentService) {
        let config = try ConfigLoader.load(text: yaml, path: "bridge.yml", environment: [:]).get()
        let service = try AttachmentService(config: config, directory: AttachmentService.temporaryDirectory(), temporary: true,
                                            offline: true)
        service.supplied.withLock { $0 = ["front": (AttachmentGatherTests.png, "a.png"), "back": (AttachmentGatherTests.png, "b.png")] }
        return (Pipeline(config: config, logger: BridgeLogger(level: .error), serviceExtension: serviceExtension,
                         attachments: service), service)
    }

    /// Keeps the last attachment, tries to add one of its own, and writes what it saw into the title.
    final class KeepLast: UNNotificationServiceExtension, @unchecked Sendable {
        override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
            let seen = request.content.attachments
            let content = request.content.mutableCopy() as! UNMutableNotificationContent
            content.title = "saw " + seen.map { "\($0.identifier):\($0.typeHint):\(FileManager.default.fileExists(atPath: $0.url.path))" }
                .joined(separator: ",")
            let forged = try! UNNotificationAttachment(identifier: "forged", url: URL(fileURLWithPath: "/etc/passwd"))
            content.attachments = [seen.last!, forged]
            contentHandler(content)
        }
    }

    @Test func aSwiftExtensionSeesThemAndKeepsFewer() throws {
        let (pipeline, service) = try Self.pipeline(Self.yaml.replacingOccurrences(of: "%EXTENSION%", with: ""),
                                                    serviceExtension: .apple { KeepLast() })
        defer { service.close() }
        let d = AttachmentGatherTests.decide(pipeline, topic: "door/ring", payload: "{}")
        #expect(d.request?.content.title == "saw front:public.png:true,back:public.png:true")
        #expect(d.request?.content.attachments.map(\.identifier) == ["back"])
        #expect(d.request?.content.attachments.first?.file.hasPrefix("/etc") == false)
    }

    static let child = """
        import json, sys
        for line in sys.stdin:
            req = json.loads(line)
            if "event" in req:
                continue
            content = req["content"]
            seen = content.get("attachments", [])
            content["title"] = "saw " + ",".join("%s:%s:%d:%s" % (a["identifier"], a["type"], a["size"], a["url"].startswith("http://127.0.0.1:9464/attachments/")) for a in seen)
            content["attachments"] = [seen[0], "forged", {"identifier": "also-forged", "url": "file:///etc/passwd"}]
            print(json.dumps({"id": req["id"], "content": content}), flush=True)
        """

    @Test func theExternalProcessSeesThemAndKeepsFewer() throws {
        let script = try writeTempFile(Self.child, name: "child.py")
        let (pipeline, service) = try Self.pipeline(Self.yaml.replacingOccurrences(of: "%EXTENSION%", with: """
            extension:
              command: [/usr/bin/python3, -u, \(script)]
              time_limit: 10s
            """))
        defer {
            pipeline.shutdown()
            service.close()
        }
        let d = AttachmentGatherTests.decide(pipeline, topic: "door/ring", payload: "{}")
        let size = AttachmentGatherTests.png.count
        #expect(d.request?.content.title == "saw front:image/png:\(size):True,back:image/png:\(size):True")
        #expect(d.request?.content.attachments.map(\.identifier) == ["front"])
        #expect(d.modified)
    }
}
