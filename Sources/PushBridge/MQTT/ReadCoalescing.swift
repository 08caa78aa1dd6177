/// A short pause before a receiving connection's next `poll`, after a turn that read a batch,
/// so that the next batch gathers while the network thread sleeps
/// (`MQTTClientOptions.readCoalescing`).
///
/// A loop turn costs a `poll`, a `read(2)`, the write step's `write(2)`s and, on loopback, a
/// wake-up of this thread by the broker's write and of the broker by ours. In a flood of QoS 1
/// messages the turns read one or two packets each (every PUBACK of ours frees the broker to
/// send the next), so those costs were most of the bridge's system time and a share of the
/// broker's, which shares the machine's cores with it. After a turn that read `minimumBatch`
/// packets or more — a flood is under way — the thread sleeps `delay` before it polls, and one
/// turn then serves what arrived meanwhile. A turn that read fewer polls at once: a message
/// now and then, or a steady stream of a few thousand a second (one packet a turn), waits for
/// nothing.
struct ReadCoalescing: Sendable, Equatable {
    /// Packets a turn must have read for the next turn to pause (at least 1).
    var minimumBatch: Int
    /// How long the thread sleeps before the next `poll` (more than zero, at most `longestDelay`).
    var delay: Duration

    /// The longest pause allowed: what a message arriving during it may wait for, on top of its
    /// batch, while a flood lasts.
    static let longestDelay: Duration = .milliseconds(100)

    init(minimumBatch: Int, delay: Duration) {
        self.minimumBatch = minimumBatch
        self.delay = delay
    }

    /// Why these values cannot be used, or `nil` when they can.
    package var problem: String? {
        if minimumBatch < 1 { return "read coalescing: minimum batch \(minimumBatch) (at least 1)" }
        if delay <= .zero || delay > Self.longestDelay {
            return "read coalescing: delay \(delay) (more than 0, at most \(Self.longestDelay))"
        }
        return nil
    }

    /// Whether the next turn pauses before its `poll`: the turn before read at least
    /// `minimumBatch` packets and nothing already read is left in the read-ahead buffer (then
    /// there is work now, and the turn does not wait at all).
    func pauses(afterBatch packets: UInt, buffered: Bool) -> Bool {
        !buffered && packets >= UInt(minimumBatch)
    }

    /// `delay` in whole microseconds, rounded up, for `usleep` (at least 1).
    var microseconds: UInt32 {
        let (seconds, attoseconds) = delay.components
        let micros = seconds * 1_000_000 + (attoseconds + 999_999_999_999) / 1_000_000_000_000
        return UInt32(clamping: max(1, micros))
    }
}
