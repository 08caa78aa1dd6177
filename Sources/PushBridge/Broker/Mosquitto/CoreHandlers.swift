/// The callbacks of a running `ClientCore`: `MQTTClientHandlers` as the adapter calls them, a
/// received message as its parts (the message model, `InboundMessage`, is the client's).
/// Given when the client starts, held by its network thread (`ClientLoop`).
///
/// All run on the client's network thread.
struct CoreHandlers: Sendable {
    /// A message arrived: topic, payload, QoS, retain, user properties, arrival time (UNIX
    /// seconds), mid, subscription identifiers. Runs inside libmosquitto's `on_message`.
    var onMessage: Message
    typealias Message = @Sendable (String, [UInt8], Int, Bool, [(name: String, value: String)], Double, Int32, [Int]) -> Void
    var onPublished: @Sendable (Int32) -> Void
    var onConnection: @Sendable (ConnectionEvent) -> Void
    var onReadsDone: @Sendable () -> Void
}

/// What libmosquitto's callbacks reach through `userdata` while the network thread runs: the
/// core and the handlers the client was started with. The network thread holds it strongly
/// from `mosquitto_user_data_set` until it has set `userdata` back to `nil`, so the
/// unretained pointer a callback gets is live.
final class ClientLoop: Sendable {
    let core: ClientCore
    let handlers: CoreHandlers

    init(core: ClientCore, handlers: CoreHandlers) {
        self.core = core
        self.handlers = handlers
    }

    /// The loop behind a callback's `userdata` (`nil` outside a run: no callback is expected
    /// then, and one is ignored). Counts the callback in `callbacksRun` (not for log lines,
    /// which are no packets).
    static func from(_ context: UnsafeMutableRawPointer?) -> ClientLoop? {
        guard let context else { return nil }
        let loop = Unmanaged<ClientLoop>.fromOpaque(context).takeUnretainedValue()
        loop.core.callbacksRun.add(1, ordering: .relaxed)
        return loop
    }

    /// The core behind a log callback's `userdata`, not counted.
    static func forLog(_ context: UnsafeMutableRawPointer?) -> ClientCore? {
        guard let context else { return nil }
        return Unmanaged<ClientLoop>.fromOpaque(context).takeUnretainedValue().core
    }
}
