import Foundation

/// One line of a recipe's `samples.tsv`, with the directives in force for it.
struct RecipeSample: Sendable, Equatable {
    /// 1-based line number in `samples.tsv` (the `LINE` column of `try --samples`).
    var line: Int
    var topic: String
    var payload: String
    /// Set by `#@ retain` on the line before.
    var retain = false
    /// Local time of day the sample is processed at, in minutes after midnight (`#@ at HH:MM`).
    var minuteOfDay = 12 * 60
    /// Environment the recipe's `bridge.yml` is loaded with (`#@ env NAME=VALUE`).
    var environment: [String: String] = [:]
}

/// One line of a recipe's `expected.tsv`.
struct RecipeExpectation: Sendable, Equatable {
    var line: Int
    /// An outcome name of SPEC section 7.
    var outcome: String
    /// After `:` in the outcome column: the filter that suppressed, or the rejection reason.
    var decidedBy: String?
    /// `nil` for `-`: no title shown.
    var title: String?
    /// `nil` for `-`: no body shown.
    var body: String?
    /// Extra `field=value` checks on the delivered request.
    var checks: [Check] = []

    struct Check: Sendable, Equatable {
        var field: String
        var value: String
    }
}

/// A malformed line in a recipe file, located as `path:line`.
struct RecipeFileError: Error, CustomStringConvertible {
    var description: String
}

/// Parsers for the recipe files under `examples/` (format in `examples/README.md`).
enum RecipeFiles {
    /// The samples of `samples.tsv`: `topic<TAB>payload` lines; blank lines and `#` comments
    /// skipped; `#@ at HH:MM`, `#@ env NAME=VALUE` (both in force until changed) and
    /// `#@ retain` (the next sample only) are directives.
    static func samples(_ text: String, path: String) throws -> [RecipeSample] {
        var out: [RecipeSample] = []
        var minute = 12 * 60
        var environment: [String: String] = [:]
        var retainNext = false
        for (index, line) in lines(text) {
            let here = "\(path):\(index)"
            if line.hasPrefix("#@") {
                let words = line.dropFirst(2).split(separator: " ", omittingEmptySubsequences: true)
                switch (words.first, words.count) {
                case ("at"?, 2):
                    guard let m = minuteOfDay(String(words[1])) else {
                        throw RecipeFileError(description: "\(here): '#@ at' needs HH:MM, got '\(words[1])'")
                    }
                    minute = m
                case ("env"?, 2):
                    let pair = words[1].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    guard pair.count == 2, !pair[0].isEmpty else {
                        throw RecipeFileError(description: "\(here): '#@ env' needs NAME=VALUE, got '\(words[1])'")
                    }
                    environment[String(pair[0])] = String(pair[1])
                case ("retain"?, 1):
                    retainNext = true
                default:
                    throw RecipeFileError(description: "\(here): unknown directive '\(line)'")
                }
                continue
            }
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let tab = line.firstIndex(of: "\t"), tab != line.startIndex else {
                throw RecipeFileError(description: "\(here): expected topic<TAB>payload")
            }
            out.append(RecipeSample(line: index, topic: String(line[..<tab]),
                                    payload: String(line[line.index(after: tab)...]),
                                    retain: retainNext, minuteOfDay: minute, environment: environment))
            retainNext = false
        }
        if retainNext {
            throw RecipeFileError(description: "\(path): '#@ retain' at the end applies to no sample")
        }
        return out
    }

    /// The expectations of `expected.tsv`:
    /// `line<TAB>outcome[:decided by]<TAB>title or -<TAB>body or -[<TAB>field=value ...]`.
    static func expectations(_ text: String, path: String) throws -> [RecipeExpectation] {
        var out: [RecipeExpectation] = []
        for (index, line) in lines(text) where !line.isEmpty && !line.hasPrefix("#") {
            let here = "\(path):\(index)"
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard columns.count == 4 || columns.count == 5, let sampleLine = Int(columns[0]) else {
                throw RecipeFileError(description: "\(here): expected line<TAB>outcome<TAB>title<TAB>body[<TAB>checks]")
            }
            let outcome = columns[1].split(separator: ":", maxSplits: 1).map(String.init)
            guard let name = outcome.first, !name.isEmpty else {
                throw RecipeFileError(description: "\(here): empty outcome")
            }
            var expectation = RecipeExpectation(line: sampleLine, outcome: name,
                                                decidedBy: outcome.count == 2 ? outcome[1] : nil,
                                                title: columns[2] == "-" ? nil : columns[2],
                                                body: columns[3] == "-" ? nil : columns[3])
            if columns.count == 5 {
                for word in columns[4].split(separator: " ") {
                    let pair = word.split(separator: "=", maxSplits: 1).map(String.init)
                    guard pair.count == 2 else {
                        throw RecipeFileError(description: "\(here): check '\(word)' is not field=value")
                    }
                    expectation.checks.append(.init(field: pair[0], value: pair[1]))
                }
            }
            out.append(expectation)
        }
        return out
    }

    /// `HH:MM` as minutes after midnight.
    static func minuteOfDay(_ text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 }),
              let h = Int(parts[0]), let m = Int(parts[1]), (0...23).contains(h), (0...59).contains(m) else { return nil }
        return h * 60 + m
    }

    /// The lines of `text` with their 1-based numbers (a final newline adds no line).
    private static func lines(_ text: String) -> [(Int, Substring)] {
        var all = text.split(separator: "\n", omittingEmptySubsequences: false)
        if all.last == "" { all.removeLast() }
        return all.enumerated().map { ($0.offset + 1, $0.element) }
    }
}
