/// Log levels, in increasing severity.
public enum LogLevel: String, Sendable, Comparable, CaseIterable {
    case debug, info, warning, error
    private var rank: Int {
        switch self {
        case .debug: 0
        case .info: 1
        case .warning: 2
        case .error: 3
        }
    }
    /// Severity order: debug < info < warning < error.
    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rank < b.rank }
}

/// Log line format.
public enum LogFormat: String, Sendable, CaseIterable {
    case text, json
}
