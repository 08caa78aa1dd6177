/// Reads an output's `fallback`, `fallback_after` and `budget`, and checks the fallbacks
/// across the outputs (each names another output; no cycle).
extension ConfigReader {
    /// `fallback`, `fallback_after` and `budget` of one output (the names are checked by
    /// `checkFallbacks` once every output is read).
    func readFallbackAndBudget(_ f: ConfigFields, into output: inout OutputConfig) {
        if let n = f["fallback"], let name = string(n, key: "fallback") {
            output.fallback = name
            output.fallbackMark = n.mark
        }
        if let n = f["fallback_after"], let v = duration(n, key: "fallback_after", minimum: .seconds(1)) {
            if f["fallback"] == nil {
                error("'fallback_after' needs 'fallback' (the output a late delivery is also handed to); add 'fallback: <output>' or remove it",
                      at: f.keyMarks["fallback_after"] ?? n.mark)
            }
            output.fallbackAfter = v
        }
        if let n = f["budget"], let b = fields(n, key: "budget", context: "budget", known: ConfigReference.keys(in: "outputs[].budget")) {
            guard let p = required(b, "per_day", in: "budget"), let perDay = int(p, key: "per_day") else { return }
            guard perDay >= 1 else {
                error("'per_day' must be at least 1 (got \(perDay)): give the number of deliveries a day this output may make, or remove 'budget' for no limit",
                      at: p.mark)
                return
            }
            output.budget = OutputBudgetConfig(perDay: perDay)
        }
    }

    /// Each `fallback` names another output, and following them never comes back to where it started.
    func checkFallbacks(_ outputs: [OutputConfig]) {
        let names = outputs.map(\.name)
        var next: [String: String] = [:]
        for o in outputs {
            guard let target = o.fallback else { continue }
            let mark = o.fallbackMark ?? YAMLMark(line: 0, column: 0)
            let others = names.filter { $0 != o.name }
            if target == o.name {
                error("output '\(o.name)': 'fallback' names the output itself; name another output that reaches the same people", at: mark)
            } else if !names.contains(target) {
                let hint = others.isEmpty ? "; there is no other output" : KeySuggestion.hint(for: target, in: others, noun: "outputs")
                error("output '\(o.name)': unknown output '\(target)' in 'fallback'" + hint, at: mark)
            } else {
                next[o.name] = target
            }
        }
        // Each cycle once, at the first of its outputs in the file.
        for cycle in NameCycles.find(in: outputs.map(\.name), next: next) {
            let o = outputs.first { $0.name == cycle[0] }
            error("'fallback' forms a cycle: " + cycle.joined(separator: " → ")
                  + "; a fallback must not fall back to the output it stands in for", at: o?.fallbackMark ?? YAMLMark(line: 0, column: 0))
        }
    }

    /// Each escalation step's `outputs` names an output.
    func checkStepOutputs(_ routes: [RouteConfig], outputs: [OutputConfig]) {
        let names = outputs.map(\.name)
        for route in routes {
            for step in route.condition?.escalate ?? [] {
                for (name, mark) in zip(step.outputs, step.outputMarks) where !names.contains(name) {
                    let hint = names.isEmpty ? "; there is no 'outputs:' section" : KeySuggestion.hint(for: name, in: names, noun: "outputs")
                    error("route '\(route.name)': unknown output '\(name)' in an escalation step's 'outputs'" + hint, at: mark)
                }
            }
        }
    }
}
