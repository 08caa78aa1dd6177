import Foundation

/// An ended window: the summary of the alerts it held (none: nothing is sent, the window is
/// only forgotten).
struct DigestSummary: Sendable, Equatable {
    var window: DigestWindowRow
    /// The held alerts, in the order they were held.
    var held: [DigestHeldRow]

    /// The route and the request id the summary carries (the same after a restart).
    var route: String { window.route }
    var id: String { window.summaryID }

    /// `digest.*` as the summary's templates see it: `count`, `titles`, `keys`, `first_at`,
    /// `last_at` (ISO-8601, Z) of the held alerts only.
    var value: JSONValue {
        .object([
            "count": .int(Int64(held.count)),
            "titles": .array(held.map { .string($0.title) }),
            "keys": .array(held.map { .string($0.alertKey) }),
            "first_at": held.first.map { .string(Timestamp.iso8601($0.at)) } ?? .null,
            "last_at": held.last.map { .string(Timestamp.iso8601($0.at)) } ?? .null,
        ])
    }

    /// The default title: "N more: <route>".
    var defaultTitle: String { "\(held.count) more: \(window.route)" }

    /// The default body: the held alerts' titles joined by ", ".
    var defaultBody: String { held.map(\.title).joined(separator: ", ") }
}
