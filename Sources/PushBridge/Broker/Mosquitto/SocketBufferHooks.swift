import Synchronization

/// Socket buffers an executable lends the network threads: read-ahead, write-behind and a
/// muted wake-up pair for clients on our own loop (NetworkThread.swift).
///
/// The library defines no C library symbol itself. The `pushbridge` executable links
/// `Sources/CSocketBuffers`, which replaces `read`, `write`, `close` and `socketpair` for
/// that program only, and installs its functions here at start (`install`). Without them
/// (any other program linking PushBridge, a sanitizer build, another libmosquitto) every
/// packet is read with three `read(2)` and written with one `write(2)`, as libmosquitto does.
///
/// The fields are C function pointers with the meaning of the same-named `pb_*` functions
/// in `socketbuffers.h`, all about the calling thread's attached socket.
package struct SocketBufferHooks: Sendable {
    package var attach: @convention(c) (Int32) -> Int32
    package var detach: @convention(c) () -> Void
    package var buffered: @convention(c) () -> Int
    package var beginWrites: @convention(c) () -> Void
    package var endWrites: @convention(c) () -> Int32
    package var pending: @convention(c) () -> Int
    package var captureBegin: @convention(c) () -> Void
    package var captureEnd: @convention(c) () -> Int32
    package var mute: @convention(c) (Int32) -> Int32
    package var counts: @convention(c) (UnsafeMutablePointer<UInt>?) -> Void
    package var mutedWrites: @convention(c) (Int32) -> UInt
    package var pollNanoseconds: @convention(c) (UnsafeMutableRawPointer?, UInt, Int) -> Int32
    package var share: @convention(c) () -> UnsafeMutableRawPointer?
    package var guestBegin: @convention(c) (UnsafeMutableRawPointer?, Int32) -> Int32
    package var guestEnd: @convention(c) () -> Int32
    package var guestWrites: @convention(c) () -> UInt
    package var append: @convention(c) (Int32, UnsafeRawPointer?, Int) -> Int32
    package var readPublishes: @convention(c) (Int32) -> Void
    package var takePublish: @convention(c) (UnsafeMutablePointer<Int>?, Int32) -> Int32

    /// The hooks from `pb_readahead_attach`, `pb_readahead_detach`, `pb_readahead_buffered`,
    /// `pb_writebehind_begin`, `_end` (also the flush: outside a collection they are the
    /// same), `_pending`, `pb_socketpair_capture_begin`, `_end`, `pb_mute_writes`,
    /// `pb_socketbuffers_counts`, `pb_muted_writes`, `pb_poll_nanoseconds`, and for another
    /// thread's writes through a network thread's buffers `pb_writebehind_share`,
    /// `pb_writebehind_guest_begin`, `_end` and `pb_writebehind_guest_writes`; and for packets
    /// we encode ourselves (`PublishPacket`) `pb_writebehind_append`, and for the QoS 0
    /// PUBLISH packets we read ourselves `pb_readahead_publishes` and `pb_readahead_take_publish`.
    package init(attach: @convention(c) (Int32) -> Int32, detach: @convention(c) () -> Void,
                buffered: @convention(c) () -> Int, beginWrites: @convention(c) () -> Void,
                endWrites: @convention(c) () -> Int32, pending: @convention(c) () -> Int, captureBegin: @convention(c) () -> Void,
                captureEnd: @convention(c) () -> Int32, mute: @convention(c) (Int32) -> Int32,
                counts: @convention(c) (UnsafeMutablePointer<UInt>?) -> Void,
                mutedWrites: @convention(c) (Int32) -> UInt,
                pollNanoseconds: @convention(c) (UnsafeMutableRawPointer?, UInt, Int) -> Int32,
                share: @convention(c) () -> UnsafeMutableRawPointer?,
                guestBegin: @convention(c) (UnsafeMutableRawPointer?, Int32) -> Int32,
                guestEnd: @convention(c) () -> Int32, guestWrites: @convention(c) () -> UInt,
                append: @convention(c) (Int32, UnsafeRawPointer?, Int) -> Int32,
                readPublishes: @convention(c) (Int32) -> Void,
                takePublish: @convention(c) (UnsafeMutablePointer<Int>?, Int32) -> Int32) {
        self.attach = attach
        self.detach = detach
        self.buffered = buffered
        self.beginWrites = beginWrites
        self.endWrites = endWrites
        self.pending = pending
        self.captureBegin = captureBegin
        self.captureEnd = captureEnd
        self.mute = mute
        self.counts = counts
        self.mutedWrites = mutedWrites
        self.pollNanoseconds = pollNanoseconds
        self.share = share
        self.guestBegin = guestBegin
        self.guestEnd = guestEnd
        self.guestWrites = guestWrites
        self.append = append
        self.readPublishes = readPublishes
        self.takePublish = takePublish
    }

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
    package static func install(_ hooks: SocketBufferHooks) {
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
