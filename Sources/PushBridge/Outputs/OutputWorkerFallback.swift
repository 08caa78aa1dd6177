/// A worker's deliveries that wait too long for their acceptance (`fallback:`): read from
/// the store when it marks them (the journal), else from `unaccepted` (in memory: without a
/// store, or what this replica holds of a shared one).
extension OutputWorker {
    /// The open deliveries handed over at or before `handedBefore` and not yet handed to the
    /// fallback, marked as handed (once each, also across a restart with a journal).
    func takeOverdue(handedBefore: Double) -> [PendingDelivery] {
        guard let store, store.traits.marksFallbacks else {
            return unaccepted.withLock { open in
                let due = open.values.filter { $0.created <= handedBefore }.sorted { $0.created < $1.created }
                for d in due { open[Self.id(d)] = nil }
                return due
            }
        }
        do { return try store.overdue(output: config.name, handedBefore: handedBefore) } catch {
            logger.error("output '\(config.name)': cannot read its late deliveries: \(error)")
            return []
        }
    }

    /// Marks deliveries as handed to the fallback (after the fallback's are stored, so a crash
    /// between the two hands them again, where the fallback's stored rows make it a no-op).
    func markFellBack(_ deliveries: [PendingDelivery]) {
        guard let store, store.traits.marksFallbacks else { return }
        do { try store.markFellBack(deliveries) } catch {
            logger.error("output '\(config.name)': cannot mark its deliveries handed to the fallback: \(error)")
        }
    }

    /// When the oldest delivery not yet accepted nor handed to the fallback was handed over.
    var oldestUnaccepted: Double? {
        guard let store, store.traits.marksFallbacks else { return unaccepted.withLock { $0.values.map(\.created).min() } }
        return (try? store.oldestUnfallen(output: config.name)) ?? nil
    }

    /// A delivery's identity among the worker's: its item and target.
    static func id(_ d: PendingDelivery) -> String { d.key + "\u{0}" + d.target }

    /// The first 200 bytes of `bytes` as text, cut before an incomplete UTF-8 sequence.
    static func prefix(_ bytes: [UInt8], limit: Int = 200) -> String {
        guard bytes.count > limit else { return String(decoding: bytes, as: UTF8.self) }
        var end = limit
        while end > 0 && bytes[end] & 0xC0 == 0x80 { end -= 1 }
        return String(decoding: bytes[..<end], as: UTF8.self)
    }
}
