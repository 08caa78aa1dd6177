import Foundation

/// The `set` filter: renders templates into content fields.
///
/// All templates of one `set` render against the content as it was before that filter, so
/// `{title: "{{ content.body }}", body: "{{ content.title }}"}` swaps the two. Text that
/// renders empty removes the field. `badge` takes an integer (`""` removes it),
/// `relevance_score` a number clamped to 0…1, `interruption_level` one of the four APNs
/// names, `sound_critical` `true`/`false` (Apple's critical-alert sound; a content with no
/// sound gets `default`), `sound_volume` a number from 0 to 1 (`""` removes it),
/// `user_info` the template's value (`Template.value`). A value that does not parse
/// leaves the field as it was and is named in the verdict.
enum ContentSetter {
    /// The rewritten content and the verdict text (`set title, body`).
    static func apply(_ fields: [(field: String, value: Template)], to context: MessageContext)
        -> (NotificationContent, String) {
        var content = context.content
        var set: [String] = []
        var problems: [String] = []
        for (field, template) in fields {
            if field == "user_info" {
                content.userInfo = template.value(in: context)
                set.append(field)
                continue
            }
            if field == "attachments" {
                // The identifiers to keep (strings, or objects with an `identifier`); never new ones.
                let value = template.value(in: context)
                let items: [JSONValue]
                switch value {
                case .array(let list): items = list
                case .null: items = []
                case .string(let text) where text.trimmingCharacters(in: .whitespaces).isEmpty: items = []
                default:
                    problems.append("attachments is not a list")
                    continue
                }
                let names = items.compactMap { $0.stringValue ?? $0["identifier"]?.stringValue }
                content.attachments = content.attachments.filter { names.contains($0.identifier) }
                set.append(field)
                continue
            }
            let text = template.render(in: context)
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if let problem = assign(field, text: text, trimmed: trimmed, in: &content) {
                problems.append(problem)
                continue
            }
            set.append(field)
        }
        var verdict = set.isEmpty ? "set nothing" : "set " + set.joined(separator: ", ")
        if !problems.isEmpty { verdict += " (ignored: " + problems.joined(separator: "; ") + ")" }
        return (content, verdict)
    }

    /// Sets `field` from its rendered text; what is wrong with the text, or `nil`.
    private static func assign(_ field: String, text: String, trimmed: String,
                               in content: inout NotificationContent) -> String? {
        guard let row = ContentField(key: field) else {
            switch (field, trimmed.lowercased()) {
            case ("sound_critical", "true"), ("sound_critical", "1"), ("sound_critical", "yes"):
                content.soundCritical = true
                if content.sound == nil { content.sound = "default" }
            case ("sound_critical", "false"), ("sound_critical", "0"), ("sound_critical", "no"), ("sound_critical", ""):
                content.soundCritical = false
            case ("sound_critical", _): return "sound_critical '\(text)' is not true or false"
            case ("sound_volume", ""): content.soundVolume = nil
            case ("sound_volume", _):
                guard let v = JSONValue(numberText: trimmed)?.numberValue, (0...1).contains(v) else {
                    return "sound_volume '\(text)' is not a number from 0 to 1"
                }
                content.soundVolume = v
            default: return "unknown field '\(field)'"
            }
            return nil
        }
        let value: JSONValue?
        switch row.kind {
        case .text: value = text.isEmpty ? nil : .string(text)
        case _ where trimmed.isEmpty: value = nil
        case .level:
            guard InterruptionLevel(rawValue: trimmed) != nil else {
                return "\(field) '\(text)' is not passive, active, time-sensitive or critical"
            }
            value = .string(trimmed)
        case .integer:
            guard let n = JSONValue(numberText: trimmed)?.exactInteger, Int(exactly: n) != nil else {
                return "\(field) '\(text)' is not an integer"
            }
            value = .int(n)
        case .score:
            guard let score = JSONValue(numberText: trimmed)?.numberValue else { return "\(field) '\(text)' is not a number" }
            value = .double(min(1, max(0, score)))
        }
        row.set(value, in: &content)
        return nil
    }
}
