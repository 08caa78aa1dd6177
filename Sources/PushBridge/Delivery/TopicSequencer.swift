import Synchronization

/// Keeps results from one source topic in arrival order, whatever order they finish in.
///
/// Each message takes a ticket when it arrives; when its decision is ready it is
/// handed in, and every decision at the head of its topic's line is emitted. Topics
/// never wait for each other. Lanes with nothing pending are removed, so memory
/// follows the messages in flight, not the number of topics seen.
public final class TopicSequencer<Item: Sendable>: Sendable {
    /// A message's place in its topic's line.
    public struct Ticket: Sendable {
        public let topic: String
        public let sequence: UInt64
    }

    private struct Lane {
        var assigned: UInt64 = 0
        var emitted: UInt64 = 0
        var ready: [UInt64: Item] = [:]
    }

    private let lanes = Mutex<[String: Lane]>([:])
    private let emit: @Sendable (Item) -> Void

    /// `emit` receives items in per-topic arrival order; it is called under the
    /// sequencer's lock, so it must be quick and must not call back into the sequencer.
    public init(emit: @escaping @Sendable (Item) -> Void) {
        self.emit = emit
    }

    /// Takes the next ticket for `topic` (call in arrival order, from the receiving thread).
    public func enter(_ topic: String) -> Ticket {
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
    public func pass(_ topic: String, _ item: Item) {
        lanes.withLock { lanes in
            if lanes.isEmpty {
                emit(item)
                return
            }
            guard let index = lanes.index(forKey: topic) else {
                emit(item)
                return
            }
            // A lane exists only while something on it is pending: take the next place.
            let seq = lanes.values[index].assigned
            lanes.values[index].assigned += 1
            lanes.values[index].ready[seq] = item
        }
    }

    /// Hands in the result for `ticket`; emits it and any that were waiting behind it.
    public func complete(_ ticket: Ticket, _ item: Item) {
        lanes.withLock { lanes in
            guard let index = lanes.index(forKey: ticket.topic) else { return }
            let emitted = lanes.values[index].emitted
            if ticket.sequence != emitted {
                lanes.values[index].ready[ticket.sequence] = item
                return
            }
            emit(item)
            let done = { (lane: inout Lane) -> Bool in
                lane.emitted += 1
                while !lane.ready.isEmpty, let next = lane.ready.removeValue(forKey: lane.emitted) {
                    emit(next)
                    lane.emitted += 1
                }
                return lane.emitted == lane.assigned
            }(&lanes.values[index])
            // The common case (nothing else pending on the topic) removes the lane by index.
            if done { lanes.remove(at: index) }
        }
    }

    /// Messages entered but not yet emitted, over all topics.
    public var pending: Int {
        lanes.withLock { $0.values.reduce(0) { $0 + Int($1.assigned - $1.emitted) } }
    }
}
