import Foundation

/// What an output's budget does with one delivery.
enum BudgetVerdict: Sendable, Equatable {
    /// Handed to the output (and counted).
    case send
    /// Kept for the route's next summary.
    case hold
    /// Not delivered: the day's budget is used up (counted as dropped).
    case drop
}

/// An output's deliveries on one local calendar day and what its budget decides for the
/// next one (docs/outputs.md, "Budgets"). Pure: `OutputBudget` keeps it and stores it.
struct OutputBudgetLedger: Sendable, Equatable {
    let config: OutputBudgetConfig
    /// The local day counted (`YYYY-MM-DD`).
    private(set) var day: String
    /// Deliveries made on `day`.
    private(set) var used: Int
    private var warnedDigest = false
    private var warnedFull = false

    /// The points logged once a day.
    enum Mark: Sendable, Equatable {
        /// 80 % used: non-critical alerts are digested from now on.
        case digesting
        /// All used: only critical alerts go.
        case full
    }

    init(config: OutputBudgetConfig, day: String, used: Int = 0) {
        self.config = config
        self.day = day
        self.used = used
    }

    /// A new local day starts from nothing.
    mutating func roll(to today: String) {
        guard today != day else { return }
        day = today
        used = 0
        warnedDigest = false
        warnedFull = false
    }

    /// The verdict for an item of `deliveries` deliveries on `today`: critical alerts always
    /// go; others are dropped once `perDay` are made, and held (alerts, not withdraws) from
    /// `digestFrom` on. What is sent is counted.
    mutating func admit(critical: Bool, withdraw: Bool, deliveries: Int, today: String) -> BudgetVerdict {
        roll(to: today)
        let verdict: BudgetVerdict
        if critical {
            verdict = .send
        } else if used >= config.perDay {
            verdict = .drop
        } else if used >= config.digestFrom && !withdraw {
            verdict = .hold
        } else {
            verdict = .send
        }
        if verdict == .send { used += deliveries }
        return verdict
    }

    /// Whether a summary of `deliveries` deliveries may go on `today` (counted when it may):
    /// not once the day's budget is used up.
    mutating func admitSummary(deliveries: Int, today: String) -> Bool {
        roll(to: today)
        guard used < config.perDay else { return false }
        used += deliveries
        return true
    }

    /// The points reached today and not yet reported (each once a day).
    mutating func newMarks() -> [Mark] {
        var marks: [Mark] = []
        if used >= config.digestFrom && !warnedDigest {
            warnedDigest = true
            marks.append(.digesting)
        }
        if used >= config.perDay && !warnedFull {
            warnedFull = true
            marks.append(.full)
        }
        return marks
    }

    /// The local calendar day (the process's time zone) of `seconds` since 1970, `YYYY-MM-DD`.
    static func localDay(_ seconds: Double) -> String {
        var t = time_t(seconds.rounded(.down))
        var parts = tm()
        localtime_r(&t, &parts)
        let y = Int(parts.tm_year) + 1900, m = Int(parts.tm_mon) + 1, d = Int(parts.tm_mday)
        return "\(y)-" + (m < 10 ? "0" : "") + "\(m)-" + (d < 10 ? "0" : "") + "\(d)"
    }
}
