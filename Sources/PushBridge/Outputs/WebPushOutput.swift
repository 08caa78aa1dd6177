import Foundation

/// Web Push (docs/webpush.md): an item goes to every browser subscribed when it is handed over,
/// one delivery per subscription (the target is its endpoint), so one slow or failing push
/// service is retried alone. The request is built when it is sent (fresh encryption; the VAPID
/// JWT and the subscription's key as `WebPushCache` keeps them); a subscription removed
/// meanwhile is skipped.
///
/// Answers (RFC 8030 section 8.3): 2xx delivered; 404/410 the subscription is gone: it is
/// removed and the delivery skipped; 429 and 5xx retried (after `Retry-After` when given);
/// any other status rejected (dead letter).
final class WebPushOutput: OutputKind {
    let kindName = "webpush"
    /// The output's name (in logs).
    let name: String
    let config: WebPushConfig
    /// The store, the VAPID key and the subject.
    let fanOut: WebPushFanOut
    private let logger: BridgeLogger

    /// The output `name` over `store`, signing with `vapid`.
    init(name: String, config: WebPushConfig, store: any SubscriptionStore, vapid: VAPIDKey, logger: BridgeLogger) {
        self.name = name
        self.config = config
        fanOut = WebPushFanOut(store: store, vapid: vapid, subject: config.subject)
        self.logger = logger
    }

    /// The output for `config` at a bridge's start: its VAPID key loaded (made and logged when
    /// the file does not exist), its subscriptions in `shared` when given (Redis: every replica
    /// sees them), else in `journal` when there is one, else in memory.
    /// Throws when the key file or the journal's table cannot be used (the file is named).
    static func start(name: String, config: WebPushConfig, journal: Journal?, shared: (any SubscriptionStore)? = nil,
                      logger: BridgeLogger) throws(OutputStartError) -> WebPushOutput {
        let vapid: VAPIDKey
        do {
            let loaded = try VAPIDKey.loadOrCreate(path: config.vapidKeyFile)
            if loaded.created { logger.info("output '\(name)': made a new VAPID key in \(config.vapidKeyFile)") }
            vapid = loaded.key
        } catch { throw OutputStartError("output '\(name)': \(error)") }
        let store: any SubscriptionStore
        if let shared {
            store = shared
        } else if let journal {
            do { store = try JournalSubscriptionStore(journal: journal, output: name) } catch {
                throw OutputStartError("output '\(name)': the journal cannot keep subscriptions: \(error)")
            }
        } else {
            store = MemorySubscriptionStore()
        }
        // Read through a kept copy; Redis's is read again each second (other replicas change it).
        return WebPushOutput(name: name, config: config, store: SubscriptionSnapshot(store, maxAge: shared == nil ? nil : 1),
                             vapid: vapid, logger: logger)
    }

    /// Every subscription (empty when the store cannot be read: logged).
    func subscriptions() -> [WebPushSubscription] {
        do { return try fanOut.store.all() } catch {
            logger.error("output '\(name)': cannot read the subscriptions: \(error)")
            return []
        }
    }

    func targets(for item: OutputItem) -> [String] {
        do { return try fanOut.store.all().map(\.endpoint) } catch {
            logger.error("output '\(name)': cannot read the subscriptions: \(error)")
            return []
        }
    }

    func request(for message: OutputMessage, target: String) -> ServiceRequest? {
        let expiration: Int64? = if case .int(let e)? = message.value["expiration"] { e } else { nil }
        let built: WebPushRequest?
        do { built = try fanOut.request(message: message.value, expiration: expiration, endpoint: target) } catch {
            logger.error("output '\(name)': cannot read the subscriptions: \(error)")
            return nil
        }
        guard let built else { return nil }
        return ServiceRequest(method: "POST", url: built.url, headers: built.headers, body: built.body)
    }

    func verdict(for response: ServiceResponse, to request: ServiceRequest, message: OutputMessage,
                 target: String) -> DeliveryVerdict {
        let verdict: WebPushRequest.Verdict
        do { verdict = try fanOut.answered(endpoint: target, status: response.status) } catch {
            logger.error("output '\(name)': cannot remove a subscription: \(error)")
            return .skipped("push service \(response.status): subscription gone")
        }
        switch verdict {
        case .accepted: return .delivered
        case .subscriptionGone:
            logger.info("output '\(name)': the push service answered \(response.status): subscription removed")
            return .skipped("push service \(response.status): subscription gone")
        case .retry:
            return .retry(after: response.headers["retry-after"].flatMap { RetryAfter.seconds($0, now: Date().timeIntervalSince1970) })
        case .rejected: return .rejected
        }
    }
}

/// Why an output could not start (the bridge does not start either).
struct OutputStartError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
