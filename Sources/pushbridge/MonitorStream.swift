import Foundation
import PushBridge
import PushBridgeCLI

/// `pushbridge monitor`'s live source when `monitoring.http` is set: the `stats` events of
/// `/api/events` (one snapshot a second, so `RATE/S` is per second between live snapshots).
enum MonitorStream {
    /// The reconnect backoff after a lost stream or a refused connection: one attempt a
    /// second (a restarting bridge answers again within seconds; nothing signals it sooner).
    static let reconnectDelay: TimeInterval = 1

    /// Connects to the bridge at `address` (sending `bearer`, the token of
    /// `monitoring.http_auth`, when set) and, on a thread, hands each snapshot's JSON to
    /// `onSnapshot`; reconnects after a lost stream. Returns `false` when the first
    /// connection fails (the caller falls back to the stats topic).
    static func start(address: HostPort, bearer: String?, onSnapshot: @escaping @Sendable ([UInt8]) -> Void) -> Bool {
        guard let first = try? EventStreamClient(address: address, bearer: bearer), (try? first.next(timeout: 3)) != nil else { return false }
        nonisolated(unsafe) let client = first   // handed to the reading thread, used only there
        Worker.run(name: "monitor stream") {
            var current: EventStreamClient? = client
            while true {
                // Blocks until the next event arrives (or 5 s pass); a lost stream ends the client.
                while let stream = current {
                    do {
                        if let e = try stream.next(timeout: 5), e.event == "stats" { onSnapshot(Array(e.data.utf8)) }
                    } catch {
                        current = nil
                    }
                }
                Thread.sleep(forTimeInterval: reconnectDelay)  // the documented reconnect backoff
                current = try? EventStreamClient(address: address, bearer: bearer)
            }
        }
        return true
    }
}
