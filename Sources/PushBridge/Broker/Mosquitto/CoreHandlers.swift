/// The callbacks of a `ClientCore`: `MQTTClientHandlers` as the adapter calls them, a
/// received message as its parts (the message model, `InboundMessage`, is the client's).
///
/// All run on the client's network thread.
struct CoreHandlers: Sendable {
    /// A message arrived: topic, payload, QoS, retain, user properties, arrival time (UNIX
    /// seconds), mid, subscription identifiers. Runs inside libmosquitto's `on_message`.
    var onMessage: @Sendable (String, [UInt8], Int, Bool, [(name: String, value: String)], Double, Int32, [Int]) -> Void
    var onPublished: @Sendable (Int32) -> Void
    var onConnection: @Sendable (ConnectionEvent) -> Void
    var log: @Sendable (LogLevel, String) -> Void
    var onReadsDone: @Sendable () -> Void
}
