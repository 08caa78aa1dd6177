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
            let text = template.render(in: context)
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            let optionalText: String? = text.isEmpty ? nil : text
            switch field {
            case "title": content.title = optionalText
            case "subtitle": content.subtitle = optionalText
            case "body": content.body = optionalText
            case "sound": content.sound = optionalText
            case "thread_id": content.threadID = optionalText
            case "category": content.category = optionalText
            case "target_content_id": content.targetContentID = optionalText
            case "filter_criteria": content.filterCriteria = optionalText
            case "badge":
                if trimmed.isEmpty {
                    content.badge = nil
                } else if let badge = integer(trimmed) {
                    content.badge = badge
                } else {
                    problems.append("badge '\(text)' is not an integer"); continue
                }
            case "relevance_score":
                if trimmed.isEmpty {
                    content.relevanceScore = nil
                } else if let score = Double(trimmed), score.isFinite {
                    content.relevanceScore = min(1, max(0, score))
                } else {
                    problems.append("relevance_score '\(text)' is not a number"); continue
                }
            case "sound_critical":
                switch trimmed.lowercased() {
                case "true", "1", "yes":
                    content.soundCritical = true
                    if content.sound == nil { content.sound = "default" }
                case "false", "0", "no", "":
                    content.soundCritical = false
                default:
                    problems.append("sound_critical '\(text)' is not true or false"); continue
                }
            case "sound_volume":
                if trimmed.isEmpty {
                    content.soundVolume = nil
                } else if let v = Double(trimmed), v >= 0, v <= 1 {
                    content.soundVolume = v
                } else {
                    problems.append("sound_volume '\(text)' is not a number from 0 to 1"); continue
                }
            case "interruption_level":
                if trimmed.isEmpty {
                    content.interruptionLevel = nil
                } else if InterruptionLevel(rawValue: trimmed) != nil {
                    content.interruptionLevel = trimmed
                } else {
                    problems.append("interruption_level '\(text)' is not passive, active, time-sensitive or critical")
                    continue
                }
            default:
                problems.append("unknown field '\(field)'"); continue
            }
            set.append(field)
        }
        var verdict = set.isEmpty ? "set nothing" : "set " + set.joined(separator: ", ")
        if !problems.isEmpty { verdict += " (ignored: " + problems.joined(separator: "; ") + ")" }
        return (content, verdict)
    }

    /// An integer from `text`: `3`, `-1`, or a float with no fraction (`3.0`).
    static func integer(_ text: String) -> Int? {
        if let i = Int(text) { return i }
        if let d = Double(text), d.isFinite, d.rounded() == d, let i = Int(exactly: d) { return i }
        return nil
    }
}
