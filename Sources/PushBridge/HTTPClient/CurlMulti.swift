import CCurl

/// A libcurl easy handle's owner that a `CurlMulti` drives: it gives its handle and makes
/// its answer when the transfer ends.
protocol CurlDriven: AnyObject {
    /// What a finished transfer yields.
    associatedtype Answer
    /// The easy handle (owned by the transfer, cleaned up in its `deinit`).
    var handle: UnsafeMutableRawPointer { get }
    /// The answer, once the multi handle reported the transfer done with `result`.
    func answer(result: CURLcode) -> Answer
}

/// One libcurl multi handle: the transfers of one output (or of the attachment fetcher),
/// driven by its one worker thread (`perform`, `wait`, `finished`); other threads only
/// `wakeUp()` a wait.
///
/// `@unchecked Sendable`: libcurl allows `curl_multi_wakeup` from any thread; every other
/// call is made by the single worker thread that owns the handle.
final class CurlMulti<Transfer: CurlDriven>: @unchecked Sendable {
    private let handle: UnsafeMutableRawPointer
    /// What the transfers share beyond the multi handle's connections and DNS cache: TLS
    /// sessions, so a new connection to a host resumes the last one's session (one full
    /// handshake per host, not one per connection). `nil` when libcurl cannot make one.
    private let share: UnsafeMutableRawPointer?
    /// The transfers running, by easy handle (they must outlive their time in the multi handle).
    private var running: [UnsafeMutableRawPointer: Transfer] = [:]

    init?(maxHostConnections: Int) {
        guard Curl.ready, let m = Curl.multiInit() else { return nil }
        handle = m
        // HTTP/2 multiplexes the transfers of one output on one connection where it can.
        _ = Curl.multiSetLong(m, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        _ = Curl.multiSetLong(m, CURLMOPT_MAX_HOST_CONNECTIONS, maxHostConnections)
        // Used by this multi handle's one thread only: no lock functions needed.
        share = Curl.shareInit()
        if let share { _ = Curl.shareSetLong(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_SSL_SESSION.rawValue)) }
    }

    deinit {
        for (easy, _) in running { Curl.multiRemoveHandle(handle, easy) }
        running.removeAll()
        Curl.multiCleanup(handle)
        // Refused (and left) while a transfer someone still holds uses it.
        if let share { Curl.shareCleanup(share) }
    }

    var count: Int { running.count }

    /// Starts `transfer` (it runs during the next `perform` calls).
    func add(_ transfer: Transfer) throws(CurlError) {
        if let share { try CurlError.check(Curl.setPointer(transfer.handle, CURLOPT_SHARE, share), "share") }
        let rc = Curl.multiAddHandle(handle, transfer.handle)
        guard rc == CURLM_OK else {
            throw CurlError(code: CURLE_FAILED_INIT, detail: Curl.multiStrerror(rc))
        }
        running[transfer.handle] = transfer
    }

    /// Does what the sockets allow now, without blocking.
    func perform() {
        var still: Int32 = 0
        Curl.multiPerform(handle, &still)
    }

    /// The transfers that ended since the last call, each with its answer.
    func finished() -> [(Transfer, Transfer.Answer)] {
        var done: [(Transfer, Transfer.Answer)] = []
        var left: Int32 = 0
        while let message = Curl.multiInfoRead(handle, &left) {
            guard pb_curl_msg_done(message) != 0, let easy = pb_curl_msg_handle(message) else { continue }
            let result = pb_curl_msg_result(message)
            Curl.multiRemoveHandle(handle, easy)
            if let transfer = running.removeValue(forKey: easy) { done.append((transfer, transfer.answer(result: result))) }
        }
        return done
    }

    /// Blocks until a socket of a running transfer is ready, libcurl's own timer is due,
    /// `wakeUp()` is called, or `milliseconds` pass.
    func wait(milliseconds: Int) {
        var ready: Int32 = 0
        Curl.multiPoll(handle, milliseconds: Int32(clamping: max(0, milliseconds)), &ready)
    }

    /// Ends a `wait` in progress (or the next one) at once; any thread.
    func wakeUp() {
        Curl.multiWakeup(handle)
    }

    /// Abandons one running transfer (its deadline passed); it ends without an answer.
    func abandon(_ transfer: Transfer) {
        guard running.removeValue(forKey: transfer.handle) != nil else { return }
        Curl.multiRemoveHandle(handle, transfer.handle)
    }

    /// Abandons every running transfer (the drain bound passed).
    func abandonAll() {
        for (easy, _) in running { Curl.multiRemoveHandle(handle, easy) }
        running.removeAll()
    }
}
