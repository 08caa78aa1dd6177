#ifndef PUSHBRIDGE_SOCKETBUFFERS_H
#define PUSHBRIDGE_SOCKETBUFFERS_H
#include <stddef.h>

/// Read-ahead and write-behind for the MQTT socket of the calling thread (a pushbridge
/// network thread).
///
/// libmosquitto 2.0 reads a packet with three read(2) calls (the command byte, the remaining
/// length one byte at a time, the rest) and writes every packet with its own write(2). This
/// target defines read(2), write(2), close(2) and socketpair(2) for the program that links
/// it: only the `pushbridge` executable (and the test runner) do; the PushBridge library
/// never depends on it and reaches the functions below only through the `SocketBufferHooks`
/// that `Sources/pushbridge/main.swift` installs (gated on the libmosquitto version they were
/// checked against). For the socket a thread attached, on that thread only:
/// - read is served from a buffer filled by one read(2) of up to 64 KiB. Bytes in the buffer
///   are invisible to poll(2): consult pb_readahead_buffered() before waiting.
/// - write, between pb_writebehind_begin() and pb_writebehind_end(), appends to a buffer that
///   end() sends with one write(2); what the socket does not take stays pending
///   (pb_writebehind_pending(), pb_writebehind_flush()). Past 256 KiB pending a write reports
///   EAGAIN, which libmosquitto takes as "socket full, try later".
/// - close first sends what is pending (best effort, without waiting), then detaches: a
///   DISCONNECT buffered by the write step goes out before libmosquitto closes the socket.
/// - socketpair, between pb_socketpair_capture_begin() and _end() on the calling thread,
///   records the pair's second (write) descriptor; pb_mute_writes() then makes every write to
///   a descriptor succeed without a system call, from any thread, until it is closed. For
///   libmosquitto's wake-up pair (made in mosquitto_new): it writes one byte to it per queued
///   packet, for mosquitto_loop's select; a client on our own loop never reads the pair.
/// Every other call goes straight to the kernel (a write first loads one flag: is it muted?).
///
/// Built with AddressSanitizer or ThreadSanitizer, none of this replaces the C library (the
/// sanitizers intercept those calls themselves): the functions below then attach nothing,
/// buffer nothing, mute nothing, and pb_socketbuffers_active() returns 0.

/// 1 when read/write/close/socketpair are the buffered ones above, 0 when compiled out.
int pb_socketbuffers_active(void);

/// Serves the calling thread's reads and writes of `fd` from buffers from now on. Returns 0,
/// or -1 when the read buffer cannot be allocated (then nothing is attached).
int pb_readahead_attach(int fd);

/// Stops buffering and frees the buffers, dropping what they hold (call when the connection
/// ends, before the descriptor number can be used again).
void pb_readahead_detach(void);

/// Bytes read from the kernel and not yet handed out, for the calling thread.
size_t pb_readahead_buffered(void);

/// From now on the calling thread's attached socket lends its PUBLISH packets to
/// pb_readahead_take_publish: `protocol` 4 for MQTT 3.1.1, 5 for MQTT 5, 0 (or anything else)
/// for none. Attaching turns it off. Only for a plain-TCP MQTT client socket whose every byte
/// its reader (libmosquitto) reads through read(2) above, attached at the start of the stream.
void pb_readahead_publishes(int protocol);

/// Takes the next packet of the calling thread's attached socket when it is a PUBLISH the
/// reader has no need to see, filling the buffer with one read(2) when it is empty (and the
/// last fill did not find the socket emptied). Returns 1 with out[0] the topic's address,
/// out[1] its length, out[2] the payload's address, out[3] its length, out[4] the retain flag
/// and out[5] the packet identifier (0 at QoS 0) — the addresses in the buffer, valid until
/// the calling thread's next read or take — or 0, leaving every byte to the reader's next
/// read, when: publishes are off; the reader is inside a packet or has not completed the
/// connection's first one (CONNACK); nothing is buffered and the socket has nothing; or the
/// next packet is anything but a whole PUBLISH without DUP whose topic is 1 to 65 535 bytes of
/// printable ASCII (0x20 to 0x7E) and that, on MQTT 5, has no properties, of QoS 0 or, when
/// `acknowledge` is not 0, of QoS 1 with a packet identifier other than 0. For a QoS 1 packet
/// its PUBACK (reason Success, 4 bytes) is kept and goes to the front of the write-behind at
/// the next pb_writebehind_begin or flush (the write step, after the batch's callbacks), never
/// with close(); at most 128 wait (then a QoS 1 packet is the reader's). The caller passes
/// `acknowledge` only while the reader has nothing queued to write, so that PUBACKs leave in
/// the order of their PUBLISH packets. pb_writebehind_pending counts the waiting PUBACKs. The
/// reader never sees a packet taken: it is as if its message callback had run for it (and, at
/// QoS 1, its PUBACK had been queued).
int pb_readahead_take_publish(size_t out[6], int acknowledge);

/// The calling thread's totals for the sockets it attached, over its whole life (for logs,
/// tests and measurements): [0] reads asked, [1] read(2) calls they cost (failing ones
/// too), [2] writes asked, [3] write(2) calls they cost.
void pb_socketbuffers_counts(unsigned long counts[4]);

/// From now on the calling thread's writes of its attached socket are collected.
void pb_writebehind_begin(void);

/// Stops collecting and sends what is pending with one write(2). Returns 0 when all of it
/// was sent, 1 when some is left (the socket is full: flush again when it is writable), -1
/// on an error (errno set; the pending bytes are dropped: the connection is broken).
int pb_writebehind_end(void);

/// Sends what is pending, as pb_writebehind_end does, without changing collection.
int pb_writebehind_flush(void);

/// Bytes collected and not yet sent, for the calling thread.
size_t pb_writebehind_pending(void);

/// Adds `count` bytes (whole MQTT packets the caller encoded) to the calling thread's
/// write-behind for `fd`, after what is pending; they go with its next flush. Returns 0, or -1
/// when `fd` is not the calling thread's attached socket or the write-behind is past its limit
/// (nothing added). Counted as one write.
int pb_writebehind_append(int fd, const void *bytes, size_t count);

/// The calling thread's buffers, for pb_writebehind_guest_begin on another thread (valid for
/// the calling thread's life; they hold a socket only while it is attached).
void *pb_writebehind_share(void);

/// From now on the calling thread's writes of `fd` are collected into `shared`'s write-behind
/// (another thread's, from pb_writebehind_share, attached to `fd`), as that thread's own would
/// be. The caller must keep that thread from its socket until pb_writebehind_guest_end (a lock
/// both take around their writes). What `shared` still has pending is sent first. Returns 0
/// when collecting, 1 when the pending bytes did not all go (the socket is full: nothing is
/// collected), -1 when `shared` is not attached to `fd` (or this thread is a guest already).
int pb_writebehind_guest_begin(void *shared, int fd);

/// Stops collecting as a guest and sends what is pending with one write(2), as
/// pb_writebehind_end does for the owner; what the socket does not take stays pending for the
/// owner's next flush. 0 when none is left, 1 when some is, -1 on an error (errno set).
int pb_writebehind_guest_end(void);

/// write(2) calls the calling thread made as a guest, over its life.
unsigned long pb_writebehind_guest_writes(void);

/// Starts recording the socket pairs the calling thread creates (the last one is kept).
void pb_socketpair_capture_begin(void);

/// Stops recording; returns the write end (second descriptor) of the last pair, or -1.
int pb_socketpair_capture_end(void);

/// Makes writes to `fd` succeed without a system call until `fd` is closed. Returns 0, or -1
/// for a descriptor number of 1024 or more (then the writes go to the kernel as before).
int pb_mute_writes(int fd);

/// Writes to the muted `fd` answered without a system call so far, from any thread (0 when
/// `fd` is not muted).
unsigned long pb_muted_writes(int fd);

/// poll(2) on `count` `struct pollfd` at `fds` with a timeout in nanoseconds (ppoll(2), the
/// signal mask unchanged): for waits shorter than poll's millisecond, which Swift cannot
/// reach (ppoll needs _GNU_SOURCE). Returns what ppoll returns.
int pb_poll_nanoseconds(void *fds, unsigned long count, long nanoseconds);

#endif
