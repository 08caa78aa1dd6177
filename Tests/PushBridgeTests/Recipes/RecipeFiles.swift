import Foundation

/// One line of a recipe's `expected.tsv`.
struct RecipeExpectation: Sendable, Equatable {
    var line: Int
    /// An outcome name (docs/decisions.md).
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

    /// The lines of `text` with their 1-based numbers (a final newline adds no line).
    private static func lines(_ text: String) -> [(Int, Substring)] {
        var all = text.split(separator: "\n", omittingEmptySubsequences: false)
        if all.last == "" { all.removeLast() }
        return all.enumerated().map { ($0.offset + 1, $0.element) }
    }
}
