/// The hand-off to the delivery store: the deliveries of one item stored (one step), or kept
/// in memory while the store cannot take them.
extension OutputSet {
    /// Stores the deliveries `rows` of `item` (each for the worker at the same index of
    /// `owners`) and wakes their workers. Without a store they wait in memory. When the store
    /// fails: a store that keeps failed adds (Redis) has them wait in memory until it answers,
    /// behind the earlier ones that wait (order kept); the journal's are sent from memory (logged).
    func hand(_ rows: [(output: String, key: String, target: String)], owners: [OutputWorker], item: OutputItem, created: Double) {
        let delivery = { (row: (output: String, key: String, target: String)) in
            PendingDelivery(row: nil, key: row.key, target: row.target, item: item.json, files: item.files, created: created)
        }
        guard let store else {
            for (row, owner) in zip(rows, owners) { owner.enqueue(delivery(row)) }
            return
        }
        let keeps = store.traits.retriesAdds
        var direct: [Int] = []
        for i in rows.indices {
            if keeps && owners[i].hasBacklog { owners[i].waitForStore(delivery(rows[i])) } else { direct.append(i) }
        }
        guard !direct.isEmpty else { return }
        do {
            let added = try store.add(direct.map { DeliveryRowKey(output: rows[$0].output, key: rows[$0].key, target: rows[$0].target) },
                                      item: item.json, files: item.files, created: created)
            var counts: [ObjectIdentifier: Int] = [:]
            for (i, new) in zip(direct, added) where new { counts[ObjectIdentifier(owners[i]), default: 0] += 1 }
            for w in workers { if let n = counts[ObjectIdentifier(w)] { w.stored(n) } }
        } catch {
            if keeps {
                // The store logs its outage once; these wait for it.
                for i in direct { owners[i].waitForStore(delivery(rows[i])) }
            } else {
                logger.error("outputs: cannot store the deliveries of \(item.key): \(error); sending them from memory")
                for i in direct { owners[i].enqueue(delivery(rows[i])) }
            }
        }
    }
}
