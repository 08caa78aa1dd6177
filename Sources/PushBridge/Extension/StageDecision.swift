/// How the end of the chain becomes the stage's result: rule 5 of docs/decisions.md (the extension stage's table).
extension ExtensionStage {
    /// The stage's result for `request` ending in `end`; leaves the admission place it held.
    func result(_ request: NotificationRequest, start: Duration, trace: [FilterTrace], admitted: Bool,
                _ end: ChainEnd) -> StageResult {
        var result = decide(request, end)
        result.filterTrace = annotate(trace, decision: result, end: end, request: request)
        result.duration = clock.monotonic() - start
        if admitted { admission.leave() }
        if case .dropped(let reason) = result.verdict {
            logger.warning("extension: request \(request.id) dropped: \(reason)")
        }
        return result
    }

    private func decide(_ request: NotificationRequest, _ end: ChainEnd) -> StageResult {
        let original = request.content
        let deliverOriginal = StageResult.Verdict.deliver(original, modified: false)
        switch end {
        case .timedOut(let step):
            return StageResult(verdict: deliverOriginal, timedOut: true,
                               rule: "\(step): no answer by the time limit nor within the grace after time_will_expire; original delivered")
        case .failed(let step, let reason):
            if config.onFailure == .drop {
                return StageResult(verdict: .dropped(reason: "\(step) failed: \(reason)"), extensionFailed: true,
                                   rule: "\(step) failed (\(reason)); dropped (on_failure: drop)")
            }
            return StageResult(verdict: deliverOriginal, extensionFailed: true,
                               rule: "\(step) failed (\(reason)); original delivered")
        case .content(let content, let decidedBy):
            if content.hasAlertText {
                let modified = content != original
                return StageResult(verdict: .deliver(content, modified: modified),
                                   rule: modified ? "content with alert text: delivered as modified"
                                                   : "content with alert text: delivered unchanged")
            }
            let who = decidedBy ?? "extension"
            if content.isEmpty && filteringGranted && request.pushType == .alert {
                return StageResult(verdict: .suppressed(decidedBy: who),
                                   rule: suppressedRules.index.value(for: who).map { suppressedRules.texts[$0] } ?? Self.suppressedRule(who: who))
            }
            return StageResult(verdict: deliverOriginal,
                               rule: "content without alert text from \(who), \(Self.whyNotSuppressed(content, filteringGranted, request)); original delivered")
        }
    }

    static func suppressedRule(who: String) -> String {
        "empty content from \(who) with the filtering entitlement and push type alert: suppressed"
    }

    private static func whyNotSuppressed(_ content: NotificationContent, _ granted: Bool, _ request: NotificationRequest) -> String {
        if !content.isEmpty { return "not empty (sound or attachments)" }
        if !granted { return "entitlement missing" }
        return "push type \(request.pushTypeName)"
    }

    /// Marks the step whose suppression rule 5 overruled: `… — not applied: entitlement missing`.
    private func annotate(_ trace: [FilterTrace], decision: StageResult, end: ChainEnd, request: NotificationRequest) -> [FilterTrace] {
        guard case .content(let content, let decidedBy?) = end, !content.hasAlertText,
              case .deliver = decision.verdict,
              let index = trace.lastIndex(where: { $0.name == decidedBy }) else { return trace }
        var trace = trace
        trace[index].verdict += " — not applied: \(Self.whyNotSuppressed(content, filteringGranted, request))"
        return trace
    }
}
