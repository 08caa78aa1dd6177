extension Duration {
    /// The duration in seconds, as a `Double`.
    var seconds: Double {
        let (s, attoseconds) = components
        return Double(s) + Double(attoseconds) / 1e18
    }

    /// Whole seconds rounded up (so 1.5 s is 2), clamped to `0...limit`.
    func wholeSeconds(limit: Int64 = Int64(Int32.max)) -> Int64 {
        let (s, attoseconds) = components
        let rounded = attoseconds > 0 ? s + 1 : s
        return Swift.min(Swift.max(rounded, 0), limit)
    }
}
