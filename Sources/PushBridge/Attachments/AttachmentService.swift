import Foundation
import Synchronization

/// Everything attachments need at run time (docs/attachments.md): the newest bytes of the
/// `from_topic` topics, the HTTP fetcher, the store, and the gathering of one request's
/// attachments within `attachments.wait`.
///
/// Made once per bridge and kept across reloads (`configure` takes the new settings and
/// topics); `pushbridge try` makes one without a fetcher, fed by `--attach`.
package final class AttachmentService: Sendable {
    /// The settings in force and the topic filters the `from_topic` sources read.
    private struct Settings: Sendable {
        var limits: AttachmentsConfig
        var filters: [String]
        var baseURL: String?
    }

    private let settings: Mutex<Settings>
    let bytes: TopicBytes
    let store: AttachmentStore
    private let fetcher: AttachmentFetcher?
    /// Stores the gathered bytes off the intake thread, one request at a time.
    private let writer = Worker(name: "pushbridge-attach")
    /// Deletes the files past `keep` once a minute, when nothing is stored or counted.
    private let sweeper = DueTimer()
    /// `try`: no broker, no network; bytes come from `--attach` only.
    let offline: Bool
    /// Requests whose attachments are being gathered now.
    let pending = Atomic<Int>(0)
    /// `try --attach NAME=FILE`: bytes that stand in for the source of attachment `NAME`.
    package let supplied = Mutex<[String: (bytes: [UInt8], file: String)]>([:])

    /// A service for `config`: the store in `directory` (`temporary`: a private folder to
    /// delete at close), fetching over HTTP unless `offline`.
    package init(config: BridgeConfig, directory: String, temporary: Bool, offline: Bool = false) throws {
        let limits = config.attachments
        settings = Mutex(Settings(limits: limits, filters: Self.filters(config), baseURL: Self.baseURL(config)))
        bytes = TopicBytes(largest: limits.largestLimit, capacity: limits.totalBytes)
        store = try AttachmentStore(directory: directory, keep: limits.keep, totalBytes: limits.totalBytes, temporary: temporary)
        fetcher = offline ? nil : AttachmentFetcher(limits: limits)
        self.offline = offline
        if !offline {
            sweeper.start { [store] in store.sweep() }
            sweeper.arm(every: .seconds(60))
        }
    }

    /// The store's folder for `config`: `attachments` in the journal's folder, or a new
    /// private temporary folder (`temporary` is then `true`).
    package static func directory(for config: BridgeConfig) -> (path: String, temporary: Bool) {
        if let journal = config.journal { return (journal.path + "/attachments", false) }
        return (temporaryDirectory(), true)
    }

    /// A new private folder's path under the system's temporary folder (made by the store).
    package static func temporaryDirectory() -> String {
        let base = NSTemporaryDirectory().hasSuffix("/") ? NSTemporaryDirectory() : NSTemporaryDirectory() + "/"
        return base + "pushbridge-attachments-\(getpid())-\(AttachmentStore.newToken().prefix(12))"
    }

    /// `true` when some route of `config` has attachments.
    package static func needed(by config: BridgeConfig) -> Bool { config.routes.contains { !$0.attachments.isEmpty } }

    /// The `from_topic` filters of every route.
    static func filters(_ config: BridgeConfig) -> [String] { config.attachmentTopicFilters }

    /// The base of the URLs phones fetch attachments from: `attachments.public_url`, or
    /// `monitoring.http`'s own address (the machine's name for an any-address bind).
    static func baseURL(_ config: BridgeConfig) -> String? {
        if let url = config.attachments.publicURL { return url }
        guard let http = config.monitoring.http else { return nil }
        var address = http
        if ["0.0.0.0", "::", ""].contains(address.host) { address.host = ProcessInfo.processInfo.hostName }
        return (config.monitoring.tls == nil ? "http://" : "https://") + address.description
    }

    /// Takes a reloaded config's settings and topics (the store keeps its files).
    package func configure(_ config: BridgeConfig) {
        settings.withLock { $0 = Settings(limits: config.attachments, filters: Self.filters(config), baseURL: Self.baseURL(config)) }
        store.update(keep: config.attachments.keep, totalBytes: config.attachments.totalBytes)
    }

    /// The topic filters to subscribe to for the `from_topic` sources.
    var topicFilters: [String] { settings.withLock { $0.filters } }

    /// Keeps a message's bytes when its topic is one a `from_topic` reads; `true` when it was.
    func intercept(topic: String, payload: [UInt8], at time: Double) -> Bool {
        let filters = settings.withLock { $0.filters }
        guard filters.contains(where: { TopicFilter.matches(filter: $0, topic: topic) }) else { return false }
        bytes.store(topic: topic, bytes: payload, at: time)
        return true
    }

    /// Stops the fetcher and deletes a temporary store.
    package func close() {
        sweeper.cancel()
        fetcher?.stop()
        writer.stop()
        store.close()
    }

    /// Gathers the attachments `specs` name for one request, rendered in `context`, within
    /// `attachments.wait`; `supplied` bytes stand in for a source of the same identifier. `completion` is called once, on another thread, with the attachments stored
    /// and what became of each.
    func gather(_ specs: [AttachmentSpec], context: MessageContext, now: Double,
                completion: @escaping @Sendable ([NotificationAttachment], [AttachmentOutcome]) -> Void) {
        let current = settings.withLock { $0 }
        let supplied = self.supplied.withLock { $0 }
        pending.add(1, ordering: .relaxed)
        let gathering = AttachmentGathering(specs: specs, token: AttachmentStore.newToken(), limits: current.limits,
                                  baseURL: current.baseURL, service: self) { [self] attachments, outcomes in
            self.pending.subtract(1, ordering: .relaxed)
            completion(attachments, outcomes)
        }
        let deadline = ContinuousClock.now.advanced(by: current.limits.wait)
        for (index, spec) in specs.enumerated() {
            if let given = supplied[spec.identifier] {
                gathering.resolve(index, source: "--attach \(given.file)", CheckedBytes.check(given.bytes, limits: current.limits).map { (given.bytes, $0) })
                continue
            }
            switch spec.source {
            case .topic(let template, let filter):
                let topic = template.render(in: context)
                let source = "from_topic \(topic)"
                guard TopicFilter.validatePublishTopic(topic) == nil, TopicFilter.matches(filter: filter, topic: topic) else {
                    gathering.resolve(index, source: source, .failure(.init(failure: .fetchFailed,
                                                                           detail: "the rendered topic '\(topic)' is not one of \(filter)")))
                    continue
                }
                if offline {
                    gathering.resolve(index, source: source, .failure(.init(failure: .fetchFailed,
                                                                           detail: "try has no broker: give the bytes with --attach \(spec.identifier)=FILE")))
                    continue
                }
                let since = now - spec.maxAge.seconds
                let limits = current.limits
                let (entry, waiter) = bytes.take(topic: topic, since: since) { [weak gathering] entry in
                    gathering?.resolve(index, source: source, Self.check(entry, topic: topic, limits: limits))
                }
                if let entry {
                    gathering.resolve(index, source: source, Self.check(entry, topic: topic, limits: limits))
                } else if let waiter {
                    gathering.onTimeout(index, source: source) { [bytes] in bytes.cancel(topic: topic, waiter: waiter) }
                }
            case .url(let template):
                guard let url = template.render(in: context, escapingHoles: Self.pathSegment) else {
                    gathering.resolve(index, source: "url \(template.source)", .failure(.init(failure: .fetchFailed,
                                                                                             detail: "a value is '.' or '..', which could leave its path segment")))
                    continue
                }
                let source = "url \(url)"
                guard let fetcher else {
                    gathering.resolve(index, source: source, .failure(.init(failure: .fetchFailed,
                                                                           detail: offline ? "try does not fetch: give the bytes with --attach \(spec.identifier)=FILE"
                                                                                           : "libcurl is not available")))
                    continue
                }
                gathering.onTimeout(index, source: source) {}
                fetcher.fetch(AttachmentFetcher.Request(url: url, headers: spec.headers, deadline: deadline) { [weak gathering] result in
                    gathering?.resolve(index, source: source, result)
                })
            }
        }
        gathering.armDeadline(current.limits.wait)
    }

    /// Bytes kept for a topic, checked: their type, or why they cannot be attached.
    private static func check(_ entry: TopicBytes.Entry, topic: String, limits: AttachmentsConfig)
        -> Result<(bytes: [UInt8], media: MediaType), CheckedBytes.CheckFailure> {
        if let size = entry.droppedSize {
            return .failure(.init(failure: .tooLarge, detail: "\(size) bytes on \(topic), over the largest limit of \(ByteCount.text(limits.largestLimit))"))
        }
        return CheckedBytes.check(entry.bytes, limits: limits).map { (entry.bytes, $0) }
    }

    /// A substituted value as one URL path segment: every byte but the unreserved ones
    /// percent-encoded (`/` included); `.` and `..` refused.
    static func pathSegment(_ value: String) -> String? {
        if value == "." || value == ".." { return nil }
        var out = ""
        for byte in value.utf8 {
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F, 0x7E: out.unicodeScalars.append(Unicode.Scalar(byte))
            default: out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    /// Stores the gathered bytes (on the writer's thread) and hands back the attachments.
    func finish(_ token: String, baseURL: String?, results: [(spec: AttachmentSpec, source: String,
                                                                        result: Result<(bytes: [UInt8], media: MediaType), CheckedBytes.CheckFailure>)],
                            completion: @escaping @Sendable ([NotificationAttachment], [AttachmentOutcome]) -> Void) {
        let job: @Sendable () -> Void = { [store] in
            var attachments: [NotificationAttachment] = []
            var outcomes: [AttachmentOutcome] = []
            for (spec, source, result) in results {
                switch result {
                case .success(let (bytes, media)):
                    do {
                        let item = try store.put(token: token, identifier: spec.identifier, media: media, bytes: bytes)
                        let a = NotificationAttachment(identifier: spec.identifier, type: media.mime, size: bytes.count, file: item.path,
                                                       url: baseURL.map { "\($0)/attachments/\(token)/\(item.name)" })
                        attachments.append(a)
                        outcomes.append(.attached(a, source: source))
                    } catch {
                        outcomes.append(.failed(spec.identifier, source: source, .fetchFailed, "not stored: \(error)"))
                    }
                case .failure(let f):
                    outcomes.append(.failed(spec.identifier, source: source, f.failure, f.detail))
                }
            }
            completion(attachments, outcomes)
        }
        if !writer.submit(job) { job() }
    }
}

/// The attachments' numbers for the stats and `/metrics`.
struct AttachmentCounts: Sendable, Equatable {
    /// Bytes and files in the store now.
    var storeBytes: Int
    var storeFiles: Int
    /// Files evicted to stay under `total_bytes`, and files past `keep`, since start.
    var evicted: Int
    var expired: Int
    /// Bytes of the `from_topic` topics held now.
    var cacheBytes: Int
    /// Alerts waiting for their attachments now.
    var waiting: Int
}

extension AttachmentService {
    /// The store's and the cache's numbers now (files past `keep` are deleted first: the
    /// stats interval is the store's sweep when no attachment arrives).
    var counts: AttachmentCounts {
        store.sweep()
        let c = store.counts
        return AttachmentCounts(storeBytes: c.bytes, storeFiles: c.files, evicted: c.evicted, expired: c.expired,
                                cacheBytes: bytes.heldBytes, waiting: pending.load(ordering: .relaxed))
    }
}
