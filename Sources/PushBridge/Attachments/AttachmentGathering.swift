import Synchronization

/// One request's attachments being gathered: each source resolves once (bytes or a
/// failure), the deadline resolves the rest, and the last resolution finishes it.
final class AttachmentGathering: Sendable {
    typealias Fetched = Result<(bytes: [UInt8], media: MediaType), CheckedBytes.CheckFailure>
    private struct State {
        var results: [(source: String, result: Fetched)?]
        var left: Int
        var cleanups: [Int: @Sendable () -> Void] = [:]
        /// The rendered source of each source still waiting (for the deadline's report).
        var waitingSources: [Int: String] = [:]
        var finished = false
    }

    let specs: [AttachmentSpec]
    let token: String
    let limits: AttachmentsConfig
    let baseURL: String?
    let service: AttachmentService
    let completion: @Sendable ([NotificationAttachment], [AttachmentOutcome]) -> Void
    private let state: Mutex<State>

    init(specs: [AttachmentSpec], token: String, limits: AttachmentsConfig, baseURL: String?, service: AttachmentService,
         completion: @escaping @Sendable ([NotificationAttachment], [AttachmentOutcome]) -> Void) {
        self.specs = specs
        self.token = token
        self.limits = limits
        self.baseURL = baseURL
        self.service = service
        self.completion = completion
        state = Mutex(State(results: Array(repeating: nil, count: specs.count), left: specs.count))
    }

    /// Registers what to undo when source `index` is still waiting at the deadline.
    func onTimeout(_ index: Int, source: String, _ cleanup: @escaping @Sendable () -> Void) {
        state.withLock { s in
            guard s.results[index] == nil else { return }
            s.cleanups[index] = cleanup
            s.waitingSources[index] = source
        }
    }

    /// Source `index` is done.
    func resolve(_ index: Int, source: String, _ result: Fetched) {
        let done = state.withLock { s -> [(source: String, result: Fetched)]? in
            guard !s.finished, s.results[index] == nil else { return nil }
            s.results[index] = (source, result)
            s.cleanups[index] = nil
            s.left -= 1
            guard s.left == 0 else { return nil }
            s.finished = true
            return s.results.map { $0! }
        }
        if let done { finish(done) }
    }

    /// Resolves every source still waiting when `wait` has passed (all of them at once when
    /// none is waiting: then nothing is left to do).
    func armDeadline(_ wait: Duration) {
        if state.withLock({ $0.finished }) { return }
        DueTimer.after(wait) { [self] in expire(wait) }
    }

    private func expire(_ wait: Duration) {
        let (done, cleanups) = state.withLock { s -> ([(source: String, result: Fetched)]?, [@Sendable () -> Void]) in
            guard !s.finished else { return (nil, []) }
            let cleanups = Array(s.cleanups.values)
            s.cleanups = [:]
            for i in s.results.indices where s.results[i] == nil {
                let source = s.waitingSources[i] ?? specs[i].sourceText
                let detail: String
                if case .topic = specs[i].source {
                    detail = "no bytes newer than max_age (\(specs[i].maxAge)) arrived within the wait (\(wait))"
                } else {
                    detail = "no answer within the wait (\(wait))"
                }
                s.results[i] = (source, .failure(.init(failure: .fetchFailed, detail: detail)))
            }
            s.finished = true
            return (s.results.map { $0! }, cleanups)
        }
        for cleanup in cleanups { cleanup() }
        if let done { finish(done) }
    }

    private func finish(_ done: [(source: String, result: Fetched)]) {
        let results = zip(specs, done).map { (spec: $0, source: $1.source, result: $1.result) }
        service.finish(token, baseURL: baseURL, results: results, completion: completion)
    }
}
