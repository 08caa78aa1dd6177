/// The filter memory (Extension) in the journal's rows (Journal, which stores plain values):
/// the conversion sits above both.
extension Journal {
    /// Every stored row of the filter memory.
    func loadFilterMemory() throws(SQLiteError) -> [FilterMemoryRow] {
        try loadFilterMemoryRows().map { FilterMemoryRow(filter: $0.filter, key: $0.key, value: $0.value) }
    }

    /// Writes one batch of the filter memory's changes in one transaction.
    func saveFilterMemory(_ changes: FilterMemoryChanges) throws(SQLiteError) {
        try saveFilterMemory(rows: changes.rows.map { (filter: $0.filter, key: $0.key, value: $0.value) },
                             droppedFilters: changes.droppedFilters)
    }
}
