import Foundation

/// How far a decision got in the caller's thread, and what it waits for when it did not get
/// to the end there (the extension stage's asynchronous steps, the attachments, an answer of
/// the shared memory).
extension Pipeline {
    /// How far `decide` got in the caller's thread.
    package enum Step: Sendable {
        /// Decided (every path without asynchronous extension steps).
        case decided(Decision)
        /// The request goes on to the extension stage's asynchronous steps: call `start`.
        case waiting(Waiting)
    }

    /// A request that needs the extension stage's asynchronous steps; nothing ran yet.
    package struct Waiting: Sendable {
        let pipeline: Pipeline
        let request: NotificationRequest
        let context: MessageContext
        let receivedAt: Double
        /// Applied to the decision when it is reached (a condition's withdraw, display topic, event).
        var finish: (@Sendable (inout Decision) -> Void)? = nil
        /// The route's attachments, gathered before the stage runs (empty: none).
        var gather: [AttachmentSpec] = []
        /// What became of the attachments (gathered by an earlier step).
        var outcomes: [AttachmentOutcome] = []
        /// A step that must wait for an answer from elsewhere before the decision can go on
        /// (a condition's transition in the shared memory): it hands on what follows.
        var deferred: (@Sendable (@escaping @Sendable (Step) -> Void) -> Void)? = nil

        /// Runs the stage; `completion` is called exactly once (possibly before this returns).
        package func start(_ completion: @escaping @Sendable (Decision) -> Void) {
            if let deferred {
                let finish = finish
                deferred { step in
                    switch step {
                    case .decided(var d):
                        finish?(&d)
                        completion(d)
                    case .waiting(var next):
                        if let finish {
                            let inner = next.finish
                            next.finish = { d in
                                inner?(&d)
                                finish(&d)
                            }
                        }
                        next.start(completion)
                    }
                }
                return
            }
            if !gather.isEmpty, let service = pipeline.attachments {
                let (pipeline, request, context, receivedAt, finish) = (pipeline, request, context, receivedAt, finish)
                service.gather(gather, context: context, now: receivedAt) { attachments, outcomes in
                    var r = request
                    var c = context
                    if !attachments.isEmpty {
                        r.content.attachments = attachments
                        c.content = r.content
                    }
                    switch pipeline.afterAttachments(r, context: c, receivedAt: receivedAt) {
                    case .decided(var d):
                        d.attachments = outcomes
                        finish?(&d)
                        completion(d)
                    case .waiting(var next):
                        next.finish = finish
                        next.outcomes = outcomes
                        next.start(completion)
                    }
                }
                return
            }
            let (pipeline, request, context, receivedAt, finish, outcomes) = (pipeline, request, context, receivedAt, finish, outcomes)
            // The closure keeps only what it reads (the context is one shared buffer).
            pipeline.stage.process(request, context: context) { result in
                var d = pipeline.decision(result, request: request, context: context, receivedAt: receivedAt)
                if !outcomes.isEmpty { d.attachments = outcomes }
                finish?(&d)
                completion(d)
            }
        }
    }
}
