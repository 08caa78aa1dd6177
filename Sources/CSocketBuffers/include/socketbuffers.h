#ifndef PUSHBRIDGE_SOCKETBUFFERS_H
#define PUSHBRIDGE_SOCKETBUFFERS_H
#include <stddef.h>

/// Read-ahead and write-behind for the MQTT socket of the calling thread (a pushbridge
/// network thread).
///
/// libmosquitto 2.0 reads a packet with three read(2) calls (the command byte, the remaining
/// length one byte at a time, the rest) and writes every packet with its own write(2). This
/// file defines read(2), write(2) and close(2) for the whole process. For the socket a thread
/// attached, on that thread only:
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
/// Every other call goes straight to the kernel.
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

/// Reads served from the buffer and reads that went to the kernel for the attached socket,
/// on the calling thread since its first attach (for tests and measurements).
void pb_readahead_counts(unsigned long *served, unsigned long *refills);

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

/// Starts recording the socket pairs the calling thread creates (the last one is kept).
void pb_socketpair_capture_begin(void);

/// Stops recording; returns the write end (second descriptor) of the last pair, or -1.
int pb_socketpair_capture_end(void);

/// Makes writes to `fd` succeed without a system call until `fd` is closed. Returns 0, or -1
/// when all 64 slots are taken (then the writes go to the kernel as before).
int pb_mute_writes(int fd);

#endif
