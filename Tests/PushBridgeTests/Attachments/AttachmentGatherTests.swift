import Foundation
import Synchronization
import Testing
@testable import PushBridge

/// The pipeline with attachments, offline (no broker): the extension stage sees them, `set`
/// and the external wire keep fewer and never more, the display message and the APNs body
/// carry them, and the wait is the only bound.
@Suite struct AttachmentGatherTests {
    static let png: [UInt8] = {
        // A 1×1 PNG.
        let hex = "89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de0000000c4944415408d763f8cfc0000003010100c9fe92ef0000000049454e44ae426082"
        var out: [UInt8] = []
        var i = hex.startIndex
        while i < hex.endIndex {
            let j = hex.index(i, offsetBy: 2)
            out.append(UInt8(hex[i..<j], radix: 16)!)
            i = j
        }
        return out
    }()

    static func pipeline(_ yaml: String, offline: Bool = true) throws -> (Pipeline, AttachmentService) {
        let config = try ConfigLoader.load(text: yaml, path: "bridge.yml", environment: [:]).get()
        let service = try AttachmentService(config: config, directory: AttachmentService.temporaryDirectory(), temporary: true,
                                            offline: offline)
        return (Pipeline(config: config, logger: BridgeLogger(level: .error), attachments: service), service)
    }

    static func decide(_ pipeline: Pipeline, topic: String, payload: String, now: Double = Date().timeIntervalSince1970) -> Decision {
        let box = Mutex<Decision?>(nil)
        let gate = WaitGate()
        pipeline.process(InboundMessage(topic: topic, payload: Array(payload.utf8), qos: 1, retain: false, receivedAt: now),
                         id: NotificationRequest.newID(), now: now) { d in
            box.withLock { $0 = d }
            gate.notify()
        }
        _ = gate.wait(until: .now + .seconds(30)) { box.withLock { $0 != nil } }
        return box.withLock { $0 }!
    }

    static let yaml = """
        entitlements: [com.apple.developer.usernotifications.filtering]
        monitoring: {http: "127.0.0.1:9464"}
        routes:
          - name: door
            topic: door/ring
            alert: {title: "Door", body: "{{ payload.who }}"}
            attachments:
              - identifier: snapshot
                from_topic: cam/front/snapshot
              - identifier: clip
                url: http://127.0.0.1:1/clip/{{ payload.id }}
        extension:
          filters:
            - name: no-picture-no-alert
              suppress: "(content.attachments | length) == 0"
            - name: caption
              set: {subtitle: "{{ content.attachments | length }} attached: {{ content.attachments[0].type }}"}
        attachments: {wait: 1s}
        """

    @Test func theStageSeesThemAndTheDisplayCarriesThem() throws {
        let (pipeline, service) = try Self.pipeline(Self.yaml)
        defer { service.close() }
        service.supplied.withLock { $0 = ["snapshot": (Self.png, "front.png")] }
        let d = Self.decide(pipeline, topic: "door/ring", payload: #"{"who":"Alice","id":"7"}"#)
        #expect(d.outcome == .delivered)
        #expect(d.request?.content.subtitle == "1 attached: image/png")
        let a = try #require(d.request?.content.attachments.first)
        #expect(a.identifier == "snapshot" && a.size == Self.png.count && a.type == "image/png")
        #expect(a.url?.hasPrefix("http://127.0.0.1:9464/attachments/") == true && a.url?.hasSuffix("/snapshot.png") == true)
        #expect(FileManager.default.contents(atPath: a.file).map(Array.init) == Self.png)
        let display = try JSONValue.parse(d.publish[0].payload)
        guard case .array(let listed)? = display["attachments"] else { Issue.record("no attachments in \(display)"); return }
        #expect(listed.first?["identifier"] == .string("snapshot") && listed.first?["url"]?.stringValue == a.url)
        #expect(d.attachments.map(\.identifier) == ["snapshot", "clip"])
        #expect(d.attachments[1].failure == .fetchFailed)
        // The APNs body: mutable-content and the URLs for an app's own service extension.
        let body = try #require(d.request?.apnsBody)
        #expect(body["aps"]?["mutable-content"] == .int(1))
        #expect(body["attachment-url"]?.stringValue == a.url)
        #expect(body["attachments"] == .array([.string(a.url!)]))
    }

    @Test func noPictureNoAlert() throws {
        let (pipeline, service) = try Self.pipeline(Self.yaml)
        defer { service.close() }
        let d = Self.decide(pipeline, topic: "door/ring", payload: #"{"who":"Bob","id":"8"}"#)
        #expect(d.outcome == .suppressed && d.decidedBy == "no-picture-no-alert")
        #expect(d.attachments.allSatisfy { $0.attachment == nil })
    }

    @Test func setKeepsFewerNeverMore() throws {
        let yaml = """
            routes:
              - name: door
                topic: door/ring
                alert: {title: "Door"}
                attachments:
                  - {identifier: one, from_topic: cam/one}
                  - {identifier: two, from_topic: cam/two}
            extension:
              filters:
                - name: only-two
                  set: {attachments: [two, invented]}
            """
        let (pipeline, service) = try Self.pipeline(yaml)
        defer { service.close() }
        service.supplied.withLock { $0 = ["one": (Self.png, "a.png"), "two": (Self.png, "b.png")] }
        let d = Self.decide(pipeline, topic: "door/ring", payload: "{}")
        #expect(d.request?.content.attachments.map(\.identifier) == ["two"])
        #expect(d.modified)
    }

    @Test func anExtensionMayNotAddOne() {
        let own = NotificationAttachment(identifier: "a", type: "image/png", size: 1, file: "/s/a.png")
        let forged = NotificationAttachment(identifier: "b", type: "", size: 0, file: "/etc/passwd")
        #expect(Pipeline.narrow([forged, own, own], to: [own]) == [own])
        #expect(Pipeline.narrow([NotificationAttachment(identifier: "a", type: "", size: 0, file: "/etc/passwd")], to: [own]) == [own])
    }

    @Test func theWaitBoundsATopicThatStaysSilent() throws {
        let yaml = """
            routes:
              - name: door
                topic: door/ring
                alert: {title: "Door"}
                attachments:
                  - {identifier: snap, from_topic: "cam/{{ payload.cam }}/snapshot"}
            attachments: {wait: 300ms}
            """
        let (pipeline, service) = try Self.pipeline(yaml, offline: false)
        defer { service.close() }
        // Fresh bytes already there: attached at once.
        _ = service.intercept(topic: "cam/front/snapshot", payload: Self.png, at: Date().timeIntervalSince1970)
        let d1 = Self.decide(pipeline, topic: "door/ring", payload: #"{"cam":"front"}"#)
        #expect(d1.request?.content.attachments.map(\.identifier) == ["snap"])
        // Nothing on the back camera: delivered without it after the wait, the reason recorded.
        let started = ContinuousClock.now
        let d2 = Self.decide(pipeline, topic: "door/ring", payload: #"{"cam":"back"}"#)
        #expect(d2.outcome == .delivered && d2.request?.content.attachments.isEmpty == true)
        #expect(d2.attachments.first?.failure == .fetchFailed && d2.attachments.first?.source == "from_topic cam/back/snapshot")
        #expect(ContinuousClock.now - started >= .milliseconds(250))
        #expect(service.bytes.waiting == 0)
        // A value that would climb out of its level is refused, not looked up.
        let d3 = Self.decide(pipeline, topic: "door/ring", payload: #"{"cam":"a/b"}"#)
        #expect(d3.attachments.first?.detail.contains("is not one of cam/+/snapshot") == true)
        // Bytes arriving during the wait are taken.
        let late = Mutex<Decision?>(nil)
        let gate = WaitGate()
        pipeline.process(InboundMessage(topic: "door/ring", payload: Array(#"{"cam":"side"}"#.utf8), qos: 1, retain: false,
                                        receivedAt: Date().timeIntervalSince1970), id: NotificationRequest.newID(), now: Date().timeIntervalSince1970) { d in
            late.withLock { $0 = d }
            gate.notify()
        }
        DueTimer.after(.milliseconds(50)) {
            _ = service.intercept(topic: "cam/side/snapshot", payload: Self.png, at: Date().timeIntervalSince1970)
        }
        _ = gate.wait(until: .now + .seconds(10)) { late.withLock { $0 != nil } }
        #expect(late.withLock { $0 }?.request?.content.attachments.map(\.identifier) == ["snap"])
    }

    @Test func aPathSegmentNeverClimbsOut() {
        #expect(AttachmentService.pathSegment("../x") == "..%2Fx")
        #expect(AttachmentService.pathSegment("a b/c?d#e%") == "a%20b%2Fc%3Fd%23e%25")
        #expect(AttachmentService.pathSegment("1718987129.308396-fqk5ka") == "1718987129.308396-fqk5ka")
        #expect(AttachmentService.pathSegment("..") == nil && AttachmentService.pathSegment(".") == nil)
        #expect(AttachmentService.pathSegment("é") == "%C3%A9")
    }
}
