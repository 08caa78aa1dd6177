/// The bridge's two connections: the output connection's options and the intake connection's
/// pause between batches (what the intake connection subscribes to is `RouteSubscriptions`).
extension Bridge {
    /// Appended to `broker.client_id` for the output connection.
    static let outputClientIDSuffix = "-out"

    /// How long the output connection's PUBACKs may wait in its socket while its thread
    /// sleeps (see `outputOptions`).
    static let outputAcknowledgementReadDelay: Duration = .milliseconds(1)

    /// The output connection's send maximum (QoS>0 publishes unacknowledged at once) when the
    /// broker's CONNACK states no Receive Maximum — mosquitto with `max_inflight_messages 0`
    /// sends none. A broker's stated maximum replaces it (libmosquitto reads it from the CONNACK).
    /// Without it libmosquitto keeps its own default of 20: the displays then waited 20 at a
    /// time for their PUBACKs, with the places of their messages, and the intake thread waited
    /// for places most of a QoS 1 flood (bench/README.md, "QoS 1 with an unbounded window").
    /// As many as the broker may have in flight to the intake connection; bounded, because
    /// libmosquitto walks its list of unacknowledged publishes at every publish and PUBACK while
    /// under its maximum.
    static let outputSendMaximum = Intake.receiveMaximum

    /// The intake connection's pause after a turn that read a batch (`ReadCoalescing`): from 4
    /// packets on, the next batch gathers for 200 µs. In the QoS 1 flood of bench/README this
    /// cut the bridge's read(2) and write(2) per input message by two thirds and raised its rate
    /// from 0.61 to 0.80 of the relay's; a message that arrives during the pause waits for it,
    /// only while a flood lasts.
    static let intakeReadCoalescing = ReadCoalescing(minimumBatch: 4, delay: .microseconds(200))

    /// The output connection's options: the broker section's, under its own client id, with
    /// no will, no subscriptions and no session (what it has not sent yet is libmosquitto's
    /// queue, and the journal covers a crash).
    ///
    /// Why a second connection: a place in the intake bound is held until a QoS>0 display
    /// (or dead-letter) publish is acknowledged, and the intake network thread may wait for
    /// a place inside `on_message`. Were the PUBACKs read by that same thread, it would wait
    /// for itself. QoS 0 publishes hold no place and stay on the intake connection.
    ///
    /// Its PUBACKs only give places back and finish journal rows, so its thread reads them
    /// when it wakes to write the next displays, or `outputAcknowledgementReadDelay` after
    /// the last read at most (`MQTTClientOptions.acknowledgementReadDelay`). The displays of an
    /// intake batch are written by the intake thread itself at the batch's end, through the
    /// output thread's write-behind buffer, unless that thread is in a turn
    /// (`MQTTClientOptions.acceptsGuestWrites`): no wake-up of the output thread per batch.
    /// Its send maximum is `outputSendMaximum` unless the broker states its own.
    static func outputOptions(for broker: BrokerConfig) -> MQTTClientOptions {
        var options = MQTTClientOptions(config: broker, will: nil, subscriptions: [])
        options.clientID = broker.clientID + outputClientIDSuffix
        options.cleanStart = true
        options.sessionExpiry = .zero
        options.acknowledgementReadDelay = outputAcknowledgementReadDelay
        options.acceptsGuestWrites = true
        options.maxInflight = outputSendMaximum
        return options
    }
}
