import CCurl
import Foundation
import Synchronization

/// Fetches `url` attachments over HTTP with libcurl (docs/attachments.md): http and https
/// only, at most 3 redirects, the type read from the first bytes and the transfer aborted
/// as soon as the body passes its type's limit, each request bounded by its own deadline.
///
/// One thread drives every transfer on one multi handle; `fetch` never blocks.
final class AttachmentFetcher: Sendable {
    /// One fetch asked for.
    struct Request: Sendable {
        var url: String
        var headers: [(name: String, value: String)]
        var deadline: ContinuousClock.Instant
        /// Called once, on the fetcher's thread: the bytes and their type, or why not.
        var done: @Sendable (Result<(bytes: [UInt8], media: MediaType), CheckedBytes.CheckFailure>) -> Void
    }

    private let limits: AttachmentsConfig
    private let multi: CurlMulti<FetchTransfer>
    private let inbox = Mutex<[Request]>([])
    private let stopping = Atomic<Bool>(false)
    private let worker = Worker(name: "pushbridge-fetch")
    private let started = Atomic<Bool>(false)

    /// `nil` when libcurl cannot be loaded.
    init?(limits: AttachmentsConfig) {
        guard Curl.ready, let multi = CurlMulti<FetchTransfer>(maxHostConnections: 8) else { return nil }
        self.multi = multi
        self.limits = limits
    }

    /// Starts `request` (the thread starts with the first).
    func fetch(_ request: Request) {
        inbox.withLock { $0.append(request) }
        if !started.exchange(true, ordering: .acquiringAndReleasing) {
            worker.submit { [self] in run() }
            worker.stop()
        }
        multi.wakeUp()
    }

    /// Ends the thread; transfers still running end as `FetchFailed`.
    func stop() {
        stopping.store(true, ordering: .releasing)
        multi.wakeUp()
    }

    private func run() {
        var running: [FetchTransfer] = []
        while !stopping.load(ordering: .acquiring) {
            for request in inbox.withLock({ r in defer { r.removeAll() }; return r }) {
                do {
                    let transfer = try FetchTransfer(request, limits: limits)
                    try multi.add(transfer)
                    running.append(transfer)
                } catch {
                    request.done(.failure(.init(failure: .fetchFailed, detail: error.description)))
                }
            }
            multi.perform()
            for (transfer, result) in multi.finished() {
                running.removeAll { $0 === transfer }
                transfer.request.done(result)
            }
            let now = ContinuousClock.now
            for transfer in running where transfer.request.deadline <= now {
                multi.abandon(transfer)
                transfer.request.done(.failure(.init(failure: .fetchFailed, detail: "no answer within the wait (timed out)")))
            }
            running.removeAll { $0.request.deadline <= now }
            let next = running.map(\.request.deadline).min().map { now.duration(to: $0) } ?? .seconds(1)
            let ms = Int(next.components.seconds * 1000 + next.components.attoseconds / 1_000_000_000_000_000) + 1
            multi.wait(milliseconds: min(max(ms, 1), 1000))
        }
        for transfer in running {
            multi.abandon(transfer)
            transfer.request.done(.failure(.init(failure: .fetchFailed, detail: "the bridge is stopping")))
        }
    }
}

/// One attachment download on its easy handle; touched only by the fetcher's thread.
final class FetchTransfer: CurlDriven {
    let handle: UnsafeMutableRawPointer
    let request: AttachmentFetcher.Request
    private let limits: AttachmentsConfig
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    fileprivate var body: [UInt8] = []
    fileprivate var media: MediaType?
    /// Why the write callback stopped the transfer.
    fileprivate var abort: CheckedBytes.CheckFailure?

    init(_ request: AttachmentFetcher.Request, limits: AttachmentsConfig) throws(CurlError) {
        precondition(Curl.ready, "libcurl is not loaded or curl_global_init failed")
        guard let h = Curl.easyInit() else { throw CurlError(code: CURLE_OUT_OF_MEMORY, detail: "curl_easy_init") }
        handle = h
        self.request = request
        self.limits = limits
        errorBuffer.initialize(to: 0)
        let left = ContinuousClock.now.duration(to: request.deadline)
        let ms = max(1, Int(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
        try CurlError.check(Curl.setString(h, CURLOPT_URL, request.url), "url")
        try CurlError.check(Curl.setPointer(h, CURLOPT_ERRORBUFFER, errorBuffer), "error buffer")
        try CurlError.check(Curl.setLong(h, CURLOPT_NOSIGNAL, 1), "nosignal")
        try CurlError.check(Curl.setLong(h, CURLOPT_TIMEOUT_MS, ms), "timeout")
        try CurlError.check(Curl.setLong(h, CURLOPT_CONNECTTIMEOUT_MS, ms), "connect timeout")
        try CurlError.check(Curl.setLong(h, CURLOPT_FOLLOWLOCATION, 1), "redirects")
        try CurlError.check(Curl.setLong(h, CURLOPT_MAXREDIRS, 3), "max redirects")
        try CurlError.check(Curl.setString(h, CURLOPT_PROTOCOLS_STR, "http,https"), "protocols")
        try CurlError.check(Curl.setString(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"), "redirect protocols")
        try CurlError.check(Curl.setLong(h, CURLOPT_SSL_VERIFYPEER, 1), "verify peer")
        try CurlError.check(Curl.setLong(h, CURLOPT_SSL_VERIFYHOST, 2), "verify host")
        try CurlError.check(Curl.setString(h, CURLOPT_USERAGENT, "pushbridge"), "user agent")
        for (name, value) in request.headers { headerList = Curl.slistAppend(headerList, "\(name): \(value)") }
        try CurlError.check(Curl.setSlist(h, CURLOPT_HTTPHEADER, headerList), "headers")
        let context = Unmanaged.passUnretained(self).toOpaque()
        try CurlError.check(Curl.setPointer(h, CURLOPT_WRITEDATA, context), "write data")
        try CurlError.check(Curl.setWrite(h, fetchBodyCallback), "write function")
    }

    deinit {
        Curl.easyCleanup(handle)
        Curl.slistFreeAll(headerList)
        errorBuffer.deallocate()
    }

    func answer(result: CURLcode) -> Result<(bytes: [UInt8], media: MediaType), CheckedBytes.CheckFailure> {
        if let abort { return .failure(abort) }
        guard result == CURLE_OK else {
            let text = String(cString: errorBuffer)
            return .failure(.init(failure: .fetchFailed, detail: CurlError(code: result, detail: text).message))
        }
        var status = 0
        _ = Curl.getLong(handle, CURLINFO_RESPONSE_CODE, &status)
        guard (200..<300).contains(status) else { return .failure(.init(failure: .fetchFailed, detail: "HTTP \(status)")) }
        return CheckedBytes.check(body, limits: limits).map { (body, $0) }
    }

    /// Takes the next piece of the body; `false` stops the transfer (`abort` says why).
    fileprivate func take(_ piece: UnsafeBufferPointer<UInt8>) -> Bool {
        if body.isEmpty {
            var status = 0
            _ = Curl.getLong(handle, CURLINFO_RESPONSE_CODE, &status)
            if !(200..<300).contains(status) {
                abort = .init(failure: .fetchFailed, detail: "HTTP \(status)")
                return false
            }
        }
        body.append(contentsOf: piece)
        if media == nil, body.count >= MediaType.sniffLength {
            guard let m = MediaType.sniff(body) else {
                abort = .init(failure: .unsupportedType, detail: "the body is not JPEG, PNG, GIF, MP3, M4A/AAC, WAV, AIFF, MP4/M4V, MOV or MPEG")
                return false
            }
            media = m
        }
        let limit = media.map { limits.limit(for: $0.kind) } ?? limits.largestLimit
        if body.count > limit {
            let what = media.map { "the \($0.kind.rawValue) limit of \(ByteCount.text(limit))" } ?? "\(ByteCount.text(limit))"
            abort = .init(failure: .fetchFailed, detail: "aborted: the body passed \(what)")
            return false
        }
        return true
    }
}

/// CURLOPT_WRITEFUNCTION: hands each piece to its transfer; returning 0 aborts it.
private func fetchBodyCallback(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
                               _ context: UnsafeMutableRawPointer?) -> Int {
    let total = size * count
    guard let data, let context else { return total }
    let transfer = Unmanaged<FetchTransfer>.fromOpaque(context).takeUnretainedValue()
    let keep = data.withMemoryRebound(to: UInt8.self, capacity: total) {
        transfer.take(UnsafeBufferPointer(start: $0, count: total))
    }
    return keep ? total : 0
}
