#ifndef PUSHBRIDGE_READAHEAD_H
#define PUSHBRIDGE_READAHEAD_H
#include <stddef.h>

/// Read-ahead for the MQTT socket of the calling thread (pushbridge's network thread).
///
/// libmosquitto 2.0's packet parser reads a packet with three read(2) calls (the command
/// byte, the remaining length one byte at a time, the rest). This file defines read(2) for
/// the whole process: a read of the attached socket by the thread that attached it is
/// served from a per-thread buffer filled by one read(2) of up to 64 KiB; every other read
/// goes straight to the kernel. Bytes in the buffer are invisible to poll(2): the caller
/// must consult pb_readahead_buffered() before it waits.

/// Serves the calling thread's reads of `fd` from a buffer from now on. Returns 0, or -1
/// when the buffer cannot be allocated (reads then go to the kernel as before).
int pb_readahead_attach(int fd);

/// Stops serving reads from the buffer, drops what it holds and frees it (call when the
/// connection ends, before the descriptor number can be used again).
void pb_readahead_detach(void);

/// Bytes read from the kernel and not yet handed out, for the calling thread.
size_t pb_readahead_buffered(void);

/// Reads served from the buffer and reads that went to the kernel for the attached
/// socket, on the calling thread since its first attach (for tests and measurements).
void pb_readahead_counts(unsigned long *served, unsigned long *refills);

#endif
