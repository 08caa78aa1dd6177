/// Finds routes that would subscribe to the bridge's own output: a loop, and a configuration error.
///
/// A template is read as a pattern in which every `{{ }}` hole is "any string, possibly
/// containing `/`". A filter and a pattern overlap when some topic is both matched by the
/// filter and producible by the pattern: the intersection of two small automata over
/// characters is searched breadth-first.
enum LoopCheck {
    private enum Label: Equatable {
        case byte(UInt8)
        case notSlash
        case any
    }

    private struct Automaton {
        var edges: [[(label: Label, to: Int)]] = [[]]
        var accepting: Set<Int> = []

        mutating func newState() -> Int {
            edges.append([])
            return edges.count - 1
        }
    }

    /// `true` when some topic produced by `template` (its source text) matches `filter`.
    static func templateMayMatch(filter: String, template: String) -> Bool {
        let wildcardFirst = filter.hasPrefix("+") || filter.hasPrefix("#")
        return intersects(filterAutomaton(filter), patternAutomaton(template), forbidLeadingDollar: wildcardFirst)
    }

    /// The literal and hole pieces of a template: `nil` stands for a hole.
    static func pieces(of template: String) -> [UInt8?] {
        let bytes = Array(template.utf8)
        var out: [UInt8?] = []
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "{"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "{") {
                var j = i + 2
                while j + 1 < bytes.count, !(bytes[j] == UInt8(ascii: "}") && bytes[j + 1] == UInt8(ascii: "}")) {
                    j += 1
                }
                out.append(nil)
                i = j + 2
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return out
    }

    private static func filterAutomaton(_ filter: String) -> Automaton {
        var a = Automaton()
        var current = 0
        let levels = filter.split(separator: "/", omittingEmptySubsequences: false)
        for (index, level) in levels.enumerated() {
            if level == "#" {
                if index == 0 {
                    a.edges[current].append((.any, current))
                    a.accepting.insert(current)
                } else {
                    // `a/#` matches `a` itself as well as `a/` followed by anything.
                    a.accepting.insert(current)
                    let tail = a.newState()
                    a.edges[current].append((.byte(UInt8(ascii: "/")), tail))
                    a.edges[tail].append((.any, tail))
                    a.accepting.insert(tail)
                }
                return a
            }
            if index > 0 {
                let next = a.newState()
                a.edges[current].append((.byte(UInt8(ascii: "/")), next))
                current = next
            }
            if level == "+" {
                a.edges[current].append((.notSlash, current))
            } else {
                for byte in level.utf8 {
                    let next = a.newState()
                    a.edges[current].append((.byte(byte), next))
                    current = next
                }
            }
        }
        a.accepting.insert(current)
        return a
    }

    private static func patternAutomaton(_ template: String) -> Automaton {
        var a = Automaton()
        var current = 0
        for piece in pieces(of: template) {
            if let byte = piece {
                let next = a.newState()
                a.edges[current].append((.byte(byte), next))
                current = next
            } else {
                a.edges[current].append((.any, current))
            }
        }
        a.accepting.insert(current)
        return a
    }

    /// Can the two labels consume one common byte (not `$` when `noDollar`)?
    private static func compatible(_ x: Label, _ y: Label, noDollar: Bool) -> Bool {
        let dollar = UInt8(ascii: "$"), slash = UInt8(ascii: "/")
        switch (x, y) {
        case (.byte(let a), .byte(let b)): return a == b && !(noDollar && a == dollar)
        case (.byte(let a), .any), (.any, .byte(let a)): return !(noDollar && a == dollar)
        case (.byte(let a), .notSlash), (.notSlash, .byte(let a)): return a != slash && !(noDollar && a == dollar)
        default: return true
        }
    }

    private static func intersects(_ f: Automaton, _ p: Automaton, forbidLeadingDollar: Bool) -> Bool {
        struct State: Hashable { var f: Int; var p: Int; var started: Bool }
        var seen: Set<State> = [State(f: 0, p: 0, started: false)]
        var queue = [State(f: 0, p: 0, started: false)]
        while let s = queue.popLast() {
            if f.accepting.contains(s.f) && p.accepting.contains(s.p) { return true }
            for fe in f.edges[s.f] {
                for pe in p.edges[s.p] where compatible(fe.label, pe.label, noDollar: forbidLeadingDollar && !s.started) {
                    let next = State(f: fe.to, p: pe.to, started: true)
                    if seen.insert(next).inserted { queue.append(next) }
                }
            }
        }
        return false
    }
}
