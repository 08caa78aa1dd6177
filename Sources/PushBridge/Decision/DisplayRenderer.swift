import Synchronization
/// Renders delivered requests and rejections into display and dead-letter messages (docs/formats.md).
struct DisplayRenderer: Sendable {
    package let display: DisplayConfig
    let deadLetter: DeadLetterConfig?
    /// MQTT 5: user properties are attached; 3.1.1 drops them.
    package let userProperties: Bool
    /// The bridge's own hop property, added to everything it publishes (loop protection).
    let hop: (name: String, value: String)?

    /// The properties of a message that has none of its own: the hop alone, built once
    /// and shared (no list to allocate per display message).
    private let hopOnly: [(name: String, value: String)]

    /// The display topics already rendered, by source topic, when the topic template reads
    /// nothing but `topic` and `levels` (the usual `display/{{ topic }}`); `nil` otherwise.
    private let topicMemo: TopicMemo?

    /// User property that marks a message published by a pushbridge.
    static let hopProperty = "pushbridge-hop"

    init(display: DisplayConfig, deadLetter: DeadLetterConfig?, userProperties: Bool,
                hop: (name: String, value: String)?) {
        self.display = display
        self.deadLetter = deadLetter
        self.userProperties = userProperties
        self.hop = hop
        self.hopOnly = hop.map { [$0] } ?? []
        topicMemo = display.topic.variables.isSubset(of: [.topic, .levels]) ? TopicMemo() : nil
    }

    /// The display message for a delivered request.
    func displayMessage(_ request: NotificationRequest, context: MessageContext,
                               modified: Bool, receivedAt: Double) -> OutboundMessage {
        let topic: String
        if let topicMemo {
            topic = topicMemo.rendered(for: context.topic) { display.topic.render(in: context) }
        } else {
            var ctx = context
            ctx.content = request.content
            topic = display.topic.render(in: ctx)
        }
        var props: [(name: String, value: String)] = []
        let payload: [UInt8]
        switch display.format {
        case .json:
            payload = Self.displayJSON(request, source: context.topic, route: context.route,
                                       modified: modified, receivedAt: receivedAt, condition: context.condition)
        case .apns:
            var bytes: [UInt8] = []
            request.apnsBody.write(into: &bytes)
            payload = bytes
            props = request.apnsHeaders
            props.append(("source-topic", context.topic))
        case .text:
            payload = Array((request.content.body ?? "").utf8)
        }
        return finish(OutboundMessage(topic: topic, payload: payload, qos: display.qos,
                                      retain: display.retain, userProperties: props))
    }

    /// A cleared condition's withdraw message, on the display topic of its source topic.
    func withdrawMessage(_ w: Withdrawal) -> OutboundMessage {
        let ctx = MessageContext(topic: w.sourceTopic, payload: .null, raw: "", route: w.route)
        return finish(OutboundMessage(topic: display.topic.render(in: ctx), payload: w.json, qos: display.qos,
                                      retain: false))
    }

    /// The dead-letter message for a rejection, or `nil` when no dead-letter topic is set.
    func deadLetterMessage(_ rejection: Rejection, message: InboundMessage,
                                  context: MessageContext?, route: String?) -> OutboundMessage? {
        deadLetterMessage(reason: rejection.reason.rawValue, detail: rejection.detail, message: message,
                          context: context, route: route)
    }

    /// The dead-letter message for a payload on the ack topic that is not an acknowledgement
    /// (`"reason":"BadAcknowledgement"`, `"route":null`: no route handles that topic), or `nil`
    /// when no dead-letter topic is set.
    func badAcknowledgementMessage(_ detail: String, message: InboundMessage) -> OutboundMessage? {
        deadLetterMessage(reason: Self.badAcknowledgement, detail: detail, message: message, context: nil, route: nil)
    }

    /// The dead-letter reason of a payload on the ack topic that is not an acknowledgement.
    static let badAcknowledgement = "BadAcknowledgement"

    /// The dead-letter shape (docs/formats.md): reason, detail, source topic, route (`null`
    /// without one), the original payload as text, when it arrived; the reason also as the
    /// user property `reason`.
    private func deadLetterMessage(reason: String, detail: String, message: InboundMessage,
                                   context: MessageContext?, route: String?) -> OutboundMessage? {
        guard let deadLetter else { return nil }
        let ctx = context ?? MessageContext(topic: message.topic, payload: .null,
                                            raw: String(decoding: message.payload, as: UTF8.self))
        var w = JSONWriter(capacity: 512)
        w.beginObject()
        w.add("reason", reason)
        w.add("detail", detail)
        w.add("source_topic", message.topic)
        w.add("route", route.map(JSONValue.string) ?? .null)
        w.add("payload", String(decoding: message.payload, as: UTF8.self))
        w.add("received_at", timestamp: message.receivedAt)
        w.endObject()
        return finish(OutboundMessage(topic: deadLetter.topic.render(in: ctx), payload: w.bytes,
                                      qos: deadLetter.qos, retain: false, userProperties: [("reason", reason)]))
    }

    /// The dead-letter message for a delivery an output refused (docs/outputs.md): the
    /// dead-letter shape with `"reason":"OutputRejected"`, the output, the HTTP status and the start of
    /// the answer as `detail`; `payload` is the item that was refused. `nil` without a
    /// dead-letter topic.
    func outputRejectionMessage(output: String, status: Int, detail: String, item: [UInt8],
                                       sourceTopic: String, route: String?, receivedAt: Double) -> OutboundMessage? {
        guard let deadLetter else { return nil }
        let text = String(decoding: item, as: UTF8.self)
        var w = JSONWriter(capacity: 256 + item.count)
        w.beginObject()
        w.add("reason", "OutputRejected")
        w.add("output", output)
        w.add("status", .int(Int64(status)))
        w.add("detail", detail)
        w.add("source_topic", sourceTopic)
        w.add("route", route)
        w.add("payload", text)
        w.add("received_at", timestamp: receivedAt)
        w.endObject()
        let ctx = MessageContext(topic: sourceTopic, payload: .null, raw: text)
        return finish(OutboundMessage(topic: deadLetter.topic.render(in: ctx), payload: w.bytes, qos: deadLetter.qos,
                                      retain: false, userProperties: [("reason", "OutputRejected")]))
    }

    private func finish(_ m: OutboundMessage) -> OutboundMessage {
        var m = m
        guard userProperties else {
            m.userProperties = []
            return m
        }
        if m.userProperties.isEmpty {
            m.userProperties = hopOnly
        } else if let hop {
            m.userProperties.append(hop)
        }
        return m
    }
}

/// Source topic → display topic, for a topic template that reads the topic alone: rendered
/// once per source topic instead of once per message (~700 instructions and a string
/// allocation each), the same string shared by every message of the topic. Holds at most
/// `limit` topics of at most `longest` bytes; past either, topics are rendered as they come.
final class TopicMemo: Sendable {
    static let limit = 4_096
    static let longest = 256
    private let state = Mutex<(index: ByteKeyIndex, rendered: [String])>((ByteKeyIndex(), []))

    /// The display topic for `source`: remembered, or `render()`'s, remembered when there is room.
    func rendered(for source: String, _ render: () -> String) -> String {
        state.withLock { s in
            if let i = s.index.value(for: source) { return s.rendered[i] }
            let topic = render()
            if s.rendered.count < Self.limit && source.utf8.count <= Self.longest {
                s.index.set(s.rendered.count, for: source)
                s.rendered.append(topic)
            }
            return topic
        }
    }
}
