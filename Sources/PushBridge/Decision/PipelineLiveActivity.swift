import Foundation

/// A condition route's Live Activity pushes (`condition.live_activity`).
extension Pipeline {
    /// The `aps` keys of a Live Activity `event` for condition `r`: the content state rendered
    /// in `context`; `nil` for an `onlyIfChanged` update whose content state is the one sent
    /// last. Start and update remember the state they send.
    func liveActivity(_ config: LiveActivityConfig, event: LiveActivityUpdate.Event, record r: ConditionRecord,
                      context: MessageContext, onlyIfChanged: Bool) -> Result<LiveActivityUpdate?, Rejection> {
        let text = config.contentState.render(in: context)
        guard case .object(let state)? = try? JSONValue.parse(Array(text.utf8)) else {
            return .failure(Rejection(.invalidPayload, "live_activity content_state must render a JSON object, got: \(text.prefix(120))"))
        }
        if event != .end {
            let changed = conditions.replaceLiveContentState(route: r.route, key: r.key, alertID: r.alertID, with: text)
            if onlyIfChanged, !changed { return .success(nil) }
        }
        let now = stage.clock.wall()
        var update = LiveActivityUpdate(event: event, timestamp: Int64(now), contentState: state)
        update.staleDate = config.staleAfter.map { Int64(now + $0.seconds) }
        if event == .end { update.dismissalDate = Int64(now + config.dismissAfter.seconds) }
        // Push-to-start: the start push names the app's attributes type and carries the
        // static attributes (the alert that a start push needs is the route's).
        if event == .start, let type = config.attributesType {
            var attributes: JSONObject = [:]
            if let template = config.attributes {
                let text = template.render(in: context)
                guard case .object(let o)? = try? JSONValue.parse(Array(text.utf8)) else {
                    return .failure(Rejection(.invalidPayload, "live_activity attributes must render a JSON object, got: \(text.prefix(120))"))
                }
                attributes = o
            }
            update.attributesType = type
            update.attributes = attributes
        }
        return .success(update)
    }
}
