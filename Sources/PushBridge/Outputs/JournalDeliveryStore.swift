/// The deliveries in the journal's `output_deliveries` table (one bridge): stored before they
/// are tried, marked done when finished; the done tail recognises a replayed item.
struct JournalDeliveryStore: OutputDeliveryStore {
    let journal: Journal

    var backend: String { "journal" }
    var traits: OutputStoreTraits { OutputStoreTraits() }

    func add(_ rows: [DeliveryRowKey], item: [UInt8], files: [String], created: Double) throws(OutputStoreError) -> [Bool] {
        do {
            return try journal.storeOutputDeliveries(rows.map { ($0.output, $0.key, $0.target) }, item: item, files: files, created: created)
        } catch { throw OutputStoreError(error.description) }
    }

    func initialPending(output: String) throws(OutputStoreError) -> Int? {
        do { return try journal.pendingOutputDeliveries(output: output) } catch { throw OutputStoreError(error.description) }
    }

    func read(output: String, cursor: inout DeliveryCursor, limit: Int) throws(OutputStoreError) -> [PendingDelivery] {
        let rows: [OutputDeliveryRow]
        do { rows = try journal.openOutputDeliveries(output: output, after: cursor.row, limit: limit) } catch {
            throw OutputStoreError(error.description)
        }
        cursor.row = rows.last?.id ?? cursor.row
        return rows.map(Self.delivery)
    }

    func finish(_ deliveries: [PendingDelivery], output: String) throws(OutputStoreError) {
        do { try journal.finishOutputDeliveries(deliveries.compactMap(\.row), output: output) } catch {
            throw OutputStoreError(error.description)
        }
    }

    func upkeep(output: String, held: [PendingDelivery], claimRoom: Int) -> DeliveryUpkeep { DeliveryUpkeep() }

    func overdue(output: String, handedBefore: Double) throws(OutputStoreError) -> [PendingDelivery] {
        do { return try journal.overdueOutputDeliveries(output: output, handedBefore: handedBefore).map(Self.delivery) } catch {
            throw OutputStoreError(error.description)
        }
    }

    func markFellBack(_ deliveries: [PendingDelivery]) throws(OutputStoreError) {
        do { try journal.markOutputFallbacks(deliveries.compactMap(\.row)) } catch { throw OutputStoreError(error.description) }
    }

    func oldestUnfallen(output: String) throws(OutputStoreError) -> Double? {
        do { return try journal.oldestUnfallenOutputDelivery(output: output) } catch { throw OutputStoreError(error.description) }
    }

    /// A row as the worker holds it.
    static func delivery(_ r: OutputDeliveryRow) -> PendingDelivery {
        PendingDelivery(row: r.id, key: r.key, target: r.target, item: r.item, files: r.files, created: r.created)
    }
}
