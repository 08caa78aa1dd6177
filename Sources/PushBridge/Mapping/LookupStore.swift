import Synchronization

/// The newest payload of each topic the routes' `lookup:` entries read (docs/configuration.md,
/// "Lookups"): a Home Assistant discovery config, a device's retained state.
///
/// Bounded: at most `maxTopics` topics (the one stored longest ago is dropped first) and
/// payloads of at most `maxPayloadBytes` (a larger one is not kept, and removes the topic's
/// older value: a lookup never reads a value its topic has since replaced). An empty payload
/// removes the topic's value (how a retained message, such as a discovery config, is deleted).
///
/// Made once per bridge and kept across reloads; written on the intake connection's thread,
/// read by the mapper.
package final class LookupStore: Sendable {
    /// The most topics kept.
    static let defaultMaxTopics = 10_000
    /// The largest payload kept, in bytes (64 KiB).
    static let defaultMaxPayloadBytes = 65_536

    private struct State {
        var entries: [String: (value: JSONValue, stamp: Int)] = [:]
        /// The topics in the order they were stored, each with its stamp then; a pair whose
        /// topic was stored again or removed since is stale, skipped when met.
        var order: [(topic: String, stamp: Int)] = []
        /// The first pair of `order` not yet looked at by the eviction.
        var head = 0
        var nextStamp = 0
    }

    private let state = Mutex(State())
    let maxTopics: Int
    let maxPayloadBytes: Int

    package init(maxTopics: Int = LookupStore.defaultMaxTopics, maxPayloadBytes: Int = LookupStore.defaultMaxPayloadBytes) {
        self.maxTopics = max(1, maxTopics)
        self.maxPayloadBytes = maxPayloadBytes
    }

    /// The number of topics kept now.
    var count: Int { state.withLock { $0.entries.count } }

    /// The value kept for `topic`: the payload parsed as JSON when it is JSON, else its text;
    /// `null` when none is kept.
    func value(of topic: String) -> JSONValue {
        state.withLock { $0.entries[topic]?.value } ?? .null
    }

    /// Keeps `payload` as `topic`'s newest value (an empty or too large one removes it).
    func keep(topic: String, payload: [UInt8]) {
        guard !payload.isEmpty, payload.count <= maxPayloadBytes else {
            state.withLock { _ = $0.entries.removeValue(forKey: topic) }
            return
        }
        // Parsed outside the lock: the intake thread is the only writer, readers never wait long.
        let value = (try? JSONValue.parse(payload)) ?? .string(String(decoding: payload, as: UTF8.self))
        let maxTopics = self.maxTopics
        state.withLock { s in
            let stamp = s.nextStamp
            s.nextStamp += 1
            s.entries[topic] = (value, stamp)
            s.order.append((topic, stamp))
            while s.entries.count > maxTopics, s.head < s.order.count {
                let oldest = s.order[s.head]
                s.head += 1
                if s.entries[oldest.topic]?.stamp == oldest.stamp { s.entries[oldest.topic] = nil }
            }
            // Stale pairs (topics stored again, removed or evicted) are dropped once they
            // outnumber the live ones: the list stays within about twice the topics kept.
            if s.order.count - s.head > 2 * s.entries.count + 1024 {
                let entries = s.entries
                s.order = s.order[s.head...].filter { entries[$0.topic]?.stamp == $0.stamp }
                s.head = 0
            }
        }
    }
}
