/// What the extension stage decided for one request (rule 5 of docs/decisions.md).
package struct StageResult: Sendable, Equatable {
    /// The outcome.
    package enum Verdict: Sendable, Equatable {
        /// Publish this content; `modified` is `true` when it differs from the original.
        case deliver(NotificationContent, modified: Bool)
        /// Silenced: empty content with the filtering entitlement and push type `alert`.
        /// `decidedBy` is the filter's name, `"extension"` or `"command"`.
        case suppressed(decidedBy: String)
        /// The extension failed and `extension.on_failure` is `drop`.
        case dropped(reason: String)
    }

    package var verdict: Verdict
    /// No answer by the time limit nor within the grace after it (the original was delivered).
    /// An answer that arrives within the grace is used and is not a timeout.
    package var timedOut: Bool = false
    /// A step threw, crashed, exited or answered garbage.
    package var extensionFailed: Bool = false
    /// One entry per filter and per asynchronous step, in chain order.
    package var filterTrace: [FilterTrace] = []
    /// Which part of rule 5 applied, for `pushbridge try` and logs.
    package var rule: String
    /// Time spent in the stage, queueing included (monotonic clock).
    package var duration: Duration = .zero

    /// `true` for a delivery whose content differs from the original.
    package var modified: Bool {
        if case .deliver(_, let modified) = verdict { return modified }
        return false
    }

    /// Short outcome word: `delivered`, `suppressed` or `dropped`.
    package var outcome: String {
        switch verdict {
        case .deliver: "delivered"
        case .suppressed: "suppressed"
        case .dropped: "dropped"
        }
    }
}

/// One step's verdict in the chain, e.g. `quiet: suppressed`, `badge: set badge`.
package struct FilterTrace: Sendable, Equatable, CustomStringConvertible {
    /// The filter's name, or `extension` / `command` for the asynchronous steps.
    package var name: String
    /// `passed`, `suppressed`, `set title, body`, `skipped (when false)`, `skipped (route)`,
    /// `answered`, `timed out`, `failed: …`, with ` — not applied: …` appended when rule 5
    /// overruled a suppression.
    package var verdict: String

    package var description: String { "\(name): \(verdict)" }
}
