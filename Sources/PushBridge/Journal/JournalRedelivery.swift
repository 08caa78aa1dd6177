import Synchronization

/// Recognising the broker's redeliveries of messages recorded before a stop (their PUBACK
/// was lost with the process): they must not be processed twice.
extension Journal {
    /// When `message` is the broker's redelivery of a message recorded before the last
    /// stop (same mid, topic and payload, arriving before any new QoS>0 message), that
    /// entry; the message must then be skipped. The first other QoS>0 message closes the window.
    func redelivery(of message: InboundMessage) -> JournalEntry? {
        guard message.qos > 0, windowOpen.load(ordering: .relaxed) else { return nil }
        return window.withLock { w in
            if let entry = w.take(message) { return entry }
            w.close()
            windowOpen.store(false, ordering: .relaxed)
            return nil
        }
    }

    /// Ends redelivery matching (a connection without a session gets no redeliveries).
    func closeRedeliveryWindow() {
        window.withLock { $0.close() }
        windowOpen.store(false, ordering: .relaxed)
    }
}

/// The last rows recorded before a stop, by mid, to recognize the broker's redeliveries.
struct RedeliveryWindow: ~Copyable {
    private var byMid: [Int32: [JournalEntry]] = [:]

    init(_ entries: [JournalEntry]) {
        for e in entries where e.message.qos > 0 { byMid[e.message.mid, default: []].append(e) }
    }

    /// The entry `message` repeats, removed from the window.
    mutating func take(_ message: InboundMessage) -> JournalEntry? {
        guard var list = byMid[message.mid],
              let i = list.lastIndex(where: { $0.message.topic == message.topic && $0.message.payload == message.payload })
        else { return nil }
        let entry = list.remove(at: i)
        byMid[message.mid] = list.isEmpty ? nil : list
        return entry
    }

    mutating func close() { byMid = [:] }
}
