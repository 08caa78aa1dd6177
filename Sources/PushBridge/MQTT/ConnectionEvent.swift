/// A change in the client's connection, reported through `MQTTClientHandlers.onConnection`.
package enum ConnectionEvent: Sendable, Equatable {
    /// CONNACK accepted; `sessionPresent` says the broker kept our session.
    case connected(sessionPresent: Bool)
    /// An established connection ended; the client reconnects unless it is stopping.
    case disconnected(reason: String)
    /// A connection attempt failed (network, TLS, or a refused CONNACK); retried with backoff.
    case connectFailed(reason: String)
}
