/// One positioned problem in a configuration file.
///
/// Prints as `bridge.yml:12:9: error: 'qos' must be 0, 1 or 2, got "two"`, or without a
/// position (`bridge.yml: error: cannot read file: …`) when the problem has none.
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file, as it was given to the loader.
    public var path: String
    /// 1-based line, or `nil` for a problem with the whole file.
    public var line: Int?
    /// 1-based column, or `nil` for a problem with the whole file.
    public var column: Int?
    /// What is wrong.
    public var message: String

    /// Creates an error; `line` and `column` are 1-based.
    public init(path: String, line: Int?, column: Int?, message: String) {
        self.path = path
        self.line = line
        self.column = column
        self.message = message
    }

    /// `PATH:LINE:COL: error: MESSAGE`.
    public var description: String {
        if let line, let column {
            return "\(path):\(line):\(column): error: \(message)"
        }
        return "\(path): error: \(message)"
    }
}

/// Every problem found in one configuration file, sorted by line and column.
public struct ConfigErrors: Error, Sendable, Equatable, CustomStringConvertible {
    /// The problems, in file order.
    public var errors: [ConfigError]

    /// Creates the list, sorted by position (whole-file problems first); the sort is stable.
    public init(_ errors: [ConfigError]) {
        self.errors = errors.enumerated().sorted { a, b in
            (a.element.line ?? 0, a.element.column ?? 0, a.offset) < (b.element.line ?? 0, b.element.column ?? 0, b.offset)
        }.map(\.element)
    }

    /// One line per error.
    public var description: String { errors.map(\.description).joined(separator: "\n") }
}
