import Synchronization

/// How the adapter lends the executable's socket buffers to each new client.
extension SocketBufferHooks {
    /// The libmosquitto versions whose read and write pattern the buffers were checked
    /// against (lib/packet_mosq.c, lib/net_mosq.c, lib/loop.c, lib/handle_publish.c of 2.0.11:
    /// three reads per packet, one write per packet, one byte on the wake-up pair per queued
    /// packet, the pair made in `mosquitto_new`, a QoS 0 PUBLISH without properties handed to
    /// the message callback and forgotten, a QoS 1 one acknowledged with a queued PUBACK).
    static let checkedLibraryVersions: Set<String> = ["2.0.11"]

    private static let installed = Mutex<(hooks: SocketBufferHooks?, refusal: String?)>((nil, nil))

    /// Lends `hooks` to every client made from now on, when the linked libmosquitto is one
    /// they were checked against (otherwise the first client logs why at debug, once).
    /// Call it at start, before any client exists.
    static func install(_ hooks: SocketBufferHooks) {
        let version = mosquittoLibraryVersion()
        if checkedLibraryVersions.contains(version) {
            installed.withLock { $0 = (hooks, nil) }
        } else {
            let checked = checkedLibraryVersions.sorted().joined(separator: ", ")
            let refusal = "socket buffers off: checked against libmosquitto \(checked), this is \(version)"
            installed.withLock { $0 = (nil, refusal) }
        }
    }

    /// The hooks for a new client, or `nil`; a refusal is handed to `log` the first time.
    static func forNewClient(log: (LogLevel, String) -> Void) -> SocketBufferHooks? {
        let (hooks, refusal) = installed.withLock { s in
            defer { s.refusal = nil }
            return s
        }
        if let refusal { log(.debug, refusal) }
        return hooks
    }

    /// What the calling (network) thread's buffers did over its life, for its log line at
    /// stop: `socket buffers: 6000 reads in 40 read(2), 2000 writes in 35 write(2), 2000
    /// wake-up writes muted`.
    func summary(mutedFD: Int32) -> String {
        var c = [UInt](repeating: 0, count: 4)
        c.withUnsafeMutableBufferPointer { counts($0.baseAddress) }
        let muted = mutedFD >= 0 ? mutedWrites(mutedFD) : 0
        return "socket buffers: \(c[0]) reads in \(c[1]) read(2), \(c[2]) writes in \(c[3]) write(2), "
            + "\(muted) wake-up writes muted"
    }
}

extension SocketBufferHooks {
    /// The calling thread's write(2) calls on its attached socket so far.
    var writeCalls: UInt {
        var c: (UInt, UInt, UInt, UInt) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &c) { counts($0.baseAddress!.assumingMemoryBound(to: UInt.self)) }
        return c.3
    }
}

extension ClientCore {
    /// Bytes read ahead and not yet handed to libmosquitto (invisible to `poll`).
    var bufferedReads: Int { socketBuffers?.buffered() ?? 0 }
    /// Bytes written behind that the socket has not taken yet.
    var pendingWrites: Int { socketBuffers?.pending() ?? 0 }
}
