/// What an extension may do with a request's attachments: keep fewer, never add one.
extension Pipeline {
    /// The attachments of `original` that `kept` names by identifier, in `kept`'s order, each once.
    static func narrow(_ kept: [NotificationAttachment], to original: [NotificationAttachment]) -> [NotificationAttachment] {
        var out: [NotificationAttachment] = []
        for a in kept {
            if let own = original.first(where: { $0.identifier == a.identifier }), !out.contains(where: { $0.identifier == a.identifier }) {
                out.append(own)
            }
        }
        return out
    }
}
