/// The one numeric coercion: what counts as an integer or a number when a JSON value (a
/// payload field, an expression result, an extension's answer) is read as one. A text
/// holding a number is read with `NumberText.parse` first where text is allowed.
extension JSONValue {
    /// The integer this value is exactly: an `int`, or a `double` with no fraction that
    /// fits in 64 bits (`3.0`); `nil` for anything else.
    public var exactInteger: Int64? {
        switch self {
        case .int(let n): n
        case .double(let d): Int64(exactly: d)
        default: nil
        }
    }

    /// The number as a `Double` when this is a finite `int` or `double`, else `nil`.
    public var numberValue: Double? {
        switch self {
        case .int(let n): Double(n)
        case .double(let d) where d.isFinite: d
        default: nil
        }
    }
}
