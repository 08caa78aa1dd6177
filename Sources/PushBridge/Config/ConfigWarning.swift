/// A positioned remark about a configuration that loads but may not do what its author
/// expects (`bridge.yml:12:12: warning: …`).
///
/// Warnings never stop a load: `check` prints them to standard error and still exits 0,
/// and `run` logs them at `warning` when it starts.
public struct ConfigWarning: Sendable, Equatable, CustomStringConvertible {
    /// The file, as it was given to the loader.
    public var path: String
    /// 1-based line.
    public var line: Int
    /// 1-based column.
    public var column: Int
    /// What may be wrong, and what to do about it.
    public var message: String

    /// Creates a warning; `line` and `column` are 1-based.
    public init(path: String, line: Int, column: Int, message: String) {
        self.path = path
        self.line = line
        self.column = column
        self.message = message
    }

    /// `PATH:LINE:COL: warning: MESSAGE`.
    public var description: String { "\(path):\(line):\(column): warning: \(message)" }
}
