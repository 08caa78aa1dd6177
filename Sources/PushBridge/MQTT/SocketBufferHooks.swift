/// Socket buffers an executable lends the network threads: read-ahead, write-behind and a
/// muted wake-up pair for clients on our own loop (NetworkThread.swift).
///
/// The library defines no C library symbol itself. The `pushbridge` executable links
/// `Sources/CSocketBuffers`, which replaces `read`, `write`, `close` and `socketpair` for
/// that program only, and lends them at start (`MQTTClient.lendSocketBuffers`). Without them
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
}
