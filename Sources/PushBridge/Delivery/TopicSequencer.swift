import Synchronization

/// Keeps results from one source topic in arrival order, whatever order they finish in.
///
/// Each message takes a ticket when it arrives; when its decision is ready it is handed in,
/// and every decision at the head of its topic's line is emitted. Emitting happens outside
/// the sequencer's lock, so topics never wait for each other: one thread at a time drains a
/// topic's line (the one that handed in its head), and results handed in meanwhile are
/// queued for that thread. Lanes with nothing pending are removed, so memory follows the
/// messages in flight, not the number of topics seen.
final class TopicSequencer<Item: Sendable>: Sendable {
    /// A message's place in its topic's line.
    package struct Ticket: Sendable {
        package let topic: String
        let sequence: UInt64
    }

    private struct Lane {
        var assigned: UInt64 = 0
        /// The next sequence number to emit (claimed by the draining thread).
        var emitted: UInt64 = 0
        var ready: [UInt64: Item] = [:]
        /// A thread is emitting this lane's results: others only queue theirs.
        var draining = false
    }

    private let lanes = Mutex<[String: Lane]>([:])
    private let emit: @Sendable (Item) -> Void

    /// `emit` receives items in per-topic arrival order, outside the sequencer's lock (items
    /// of different topics may be emitted at the same time on different threads).
    init(emit: @escaping @Sendable (Item) -> Void) {
        self.emit = emit
    }

    /// Takes the next ticket for `topic` (call in arrival order, from the receiving thread).
    package func enter(_ topic: String) -> Ticket {
        lanes.withLock { lanes in
            // One hash: the lane is updated in place.
            let seq = { (lane: inout Lane) -> UInt64 in
                defer { lane.assigned += 1 }
                return lane.assigned
            }(&lanes[topic, default: Lane()])
            return Ticket(topic: topic, sequence: seq)
        }
    }

    /// Hands in a result decided in the receiving thread without a ticket (call in arrival
    /// order, from the receiving thread, like `enter`): emitted at once when nothing on
    /// `topic` is pending, otherwise queued behind what is. The same order as `enter`
    /// followed by `complete`, without a lane (and without hashing the topic when no
    /// topic has anything pending).
    func pass(_ topic: String, _ item: Item) {
        let queued = lanes.withLock { lanes -> Bool in
            // A lane exists only while something on it is pending: take the next place.
            guard !lanes.isEmpty, let index = lanes.index(forKey: topic) else { return false }
            let seq = lanes.values[index].assigned
            lanes.values[index].assigned += 1
            lanes.values[index].ready[seq] = item
            return true
        }
        // No lane: nothing pending and nobody draining this topic (only the receiving thread
        // creates lanes, and a drainer removes its lane after its last emit).
        if !queued { emit(item) }
    }

    /// Hands in the result for `ticket`; emits it and any that were waiting behind it.
    func complete(_ ticket: Ticket, _ item: Item) {
        let mine = lanes.withLock { lanes -> Bool in
            guard let index = lanes.index(forKey: ticket.topic) else { return false }
            if lanes.values[index].draining || ticket.sequence != lanes.values[index].emitted {
                lanes.values[index].ready[ticket.sequence] = item
                return false
            }
            lanes.values[index].draining = true
            lanes.values[index].emitted += 1
            return true
        }
        guard mine else { return }
        emit(item)
        while let next = nextBatch(ticket.topic) {
            for item in next { emit(item) }
        }
    }

    /// The draining thread's next results in order, claimed; `nil` when none is ready (the
    /// lane is then given up, or removed when nothing on it is pending).
    private func nextBatch(_ topic: String) -> [Item]? {
        lanes.withLock { lanes -> [Item]? in
            guard let index = lanes.index(forKey: topic) else { return nil }
            let batch = { (lane: inout Lane) -> [Item] in
                var batch: [Item] = []
                while !lane.ready.isEmpty, let next = lane.ready.removeValue(forKey: lane.emitted) {
                    batch.append(next)
                    lane.emitted += 1
                }
                if batch.isEmpty { lane.draining = false }
                return batch
            }(&lanes.values[index])
            if !batch.isEmpty { return batch }
            // The common case (nothing else pending on the topic) removes the lane by index.
            if lanes.values[index].emitted == lanes.values[index].assigned { lanes.remove(at: index) }
            return nil
        }
    }

    /// Messages entered but not yet emitted, over all topics.
    package var pending: Int {
        lanes.withLock { $0.values.reduce(0) { $0 + Int($1.assigned - $1.emitted) } }
    }
}
