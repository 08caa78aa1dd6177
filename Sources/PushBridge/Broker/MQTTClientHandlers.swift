/// The callbacks of a running `MQTTClient`, given to `start(handlers:)`.
///
/// The network thread keeps them in `let`s (never in a lock) because the per-message closure
/// is read on every message. All run on the client's network thread: return quickly.
package struct MQTTClientHandlers: Sendable {
    /// A message arrived. Runs inside libmosquitto's `on_message`, before the QoS 1 PUBACK
    /// is written, so work done here (a journal write) happens before the broker forgets it.
    package var onMessage: @Sendable (InboundMessage) -> Void
    /// A publish of ours is done: QoS 1 PUBACK, QoS 2 PUBCOMP, or QoS 0 written to the socket.
    package var onPublished: @Sendable (Int32) -> Void
    /// Connected, disconnected, or a failed attempt.
    package var onConnection: @Sendable (ConnectionEvent) -> Void
    /// A batch of packets has been read and handled (every `onMessage` of the batch has
    /// returned) and nothing they queued, PUBACKs included, is written yet: the last moment
    /// to make the batch's messages durable together (one journal commit per batch). Called
    /// after any read that ran a callback, even when the connection then failed (plain TCP
    /// and TLS alike: both run the client's own loop).
    var onReadsDone: @Sendable () -> Void

    package init(onMessage: @escaping @Sendable (InboundMessage) -> Void = { _ in },
                onPublished: @escaping @Sendable (Int32) -> Void = { _ in },
                onConnection: @escaping @Sendable (ConnectionEvent) -> Void = { _ in },
                onReadsDone: @escaping @Sendable () -> Void = {}) {
        self.onMessage = onMessage
        self.onPublished = onPublished
        self.onConnection = onConnection
        self.onReadsDone = onReadsDone
    }
}

extension MQTTClientHandlers {
    /// The same callbacks as the adapter calls them: it hands a message over in parts, made
    /// into an `InboundMessage` here.
    var core: CoreHandlers {
        let onMessage = self.onMessage
        return CoreHandlers(
            onMessage: { topic, payload, qos, retain, userProperties, receivedAt, mid, subscriptionIdentifiers in
                onMessage(InboundMessage(topic: topic, payload: payload, qos: qos, retain: retain,
                                         userProperties: userProperties, receivedAt: receivedAt, mid: mid,
                                         subscriptionIdentifiers: subscriptionIdentifiers))
            },
            onPublished: onPublished, onConnection: onConnection, onReadsDone: onReadsDone)
    }
}
