// See include/socketbuffers.h. The definitions of read(), write(), close() and socketpair()
// below take the place of the C library's for every caller in the program that links this
// target (the `pushbridge` executable and the tests; never the PushBridge library): the
// executable's symbols come first in the dynamic linker's search, so libmosquitto's
// references bind here too.
#define _GNU_SOURCE
#include "socketbuffers.h"

#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

// Under AddressSanitizer or ThreadSanitizer (`swift build --sanitize=address|thread`, the
// fuzz targets, `make sanitize`) nothing here replaces the C library: the sanitizers'
// runtimes intercept read/write/close themselves, and a definition of ours would hide every
// call from them. The pb_* functions stay (the bridge calls them) and report an empty,
// unattached buffer, so every call goes straight to the kernel as before issue 10.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define PB_SOCKETBUFFERS_COMPILED_OUT 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PB_SOCKETBUFFERS_COMPILED_OUT 1
#endif

#ifdef PB_SOCKETBUFFERS_COMPILED_OUT

int pb_socketbuffers_active(void) { return 0; }
int pb_readahead_attach(int fd) { (void)fd; return 0; }
void pb_readahead_detach(void) {}
size_t pb_readahead_buffered(void) { return 0; }
void pb_socketbuffers_counts(unsigned long counts[4]) { for (int i = 0; i < 4; i++) counts[i] = 0; }
unsigned long pb_muted_writes(int fd) { (void)fd; return 0; }
void pb_writebehind_begin(void) {}
int pb_writebehind_end(void) { return 0; }
int pb_writebehind_flush(void) { return 0; }
size_t pb_writebehind_pending(void) { return 0; }
int pb_writebehind_append(int fd, const void *bytes, size_t count) { (void)fd; (void)bytes; (void)count; return -1; }
void pb_socketpair_capture_begin(void) {}
int pb_socketpair_capture_end(void) { return -1; }
int pb_mute_writes(int fd) { (void)fd; return -1; }
void *pb_writebehind_share(void) { return NULL; }
int pb_writebehind_guest_begin(void *shared, int fd) { (void)shared; (void)fd; return -1; }
int pb_writebehind_guest_end(void) { return 0; }
unsigned long pb_writebehind_guest_writes(void) { return 0; }
void pb_readahead_publishes(int protocol) { (void)protocol; }
int pb_readahead_take_publish(size_t out[6], int acknowledge) { (void)out; (void)acknowledge; return 0; }

#else

int pb_socketbuffers_active(void) { return 1; }

enum {
    read_capacity = 64 * 1024,
    write_limit = 256 * 1024,   // pending bytes past which a write reports EAGAIN
};

struct socketbuffers {
    int fd;
    // read-ahead
    size_t start, end;
    unsigned char *bytes;
    // The last read(2) took less than it asked for: the socket was empty then. The next read
    // that finds the buffer empty answers EAGAIN without asking the kernel (whose answer
    // would almost always be EAGAIN too), and the loop's poll decides; one system call
    // fewer per loop turn.
    int drained;
    // Where the bytes read() handed out stand in the MQTT stream (track()): at a packet's
    // command byte, in its remaining length, in its body, or lost (a malformed length: the
    // reader closes the connection). The stream starts at a packet when the socket is attached
    // (right after CONNECT); packets counts the ones the reader (libmosquitto) completed.
    int phase;
    unsigned length_shift;
    size_t body_left;
    unsigned long packets;
    // pb_readahead_publishes: 0 off, 4 MQTT 3.1.1, 5 MQTT 5.
    int publishes;
    // The PUBACKs of the QoS 1 packets taken since the last write step, moved to the front of
    // the write-behind's next collection or flush (move_acks): never sent by close(), which
    // may come between a take and the callbacks' commit (libmosquitto drops its queued PUBACKs
    // with the connection too; the broker sends those messages again).
    unsigned char acks[4 * 128];
    size_t acks_length;
    // write-behind
    int collecting;
    unsigned char *out;
    size_t out_start, out_end, out_capacity;
};

// One per thread; only the thread that attached a socket ever sees it attached.
static _Thread_local struct socketbuffers state = { .fd = -1 };

// Another thread's buffers whose write-behind this thread collects into between
// pb_writebehind_guest_begin and _end; the caller's lock keeps their owner out meanwhile.
static _Thread_local struct socketbuffers *guest;
// write(2) calls this thread made as a guest (its own counts are for its own socket).
static _Thread_local unsigned long guest_kernel_writes;

// The calling thread's totals for its attached sockets, over all its attaches: reads asked,
// read(2) calls made for them, writes asked, write(2) calls made for them.
enum { count_reads, count_kernel_reads, count_writes, count_kernel_writes };
static _Thread_local unsigned long counts[4];

static ssize_t kernel_read(int fd, void *buffer, size_t count) {
    return syscall(SYS_read, fd, buffer, count);
}

enum { at_command, in_length, in_body, lost };

// Follows the MQTT packets (MQTT 3.1.1 and 5 section 2.1: a command byte, the remaining length
// in one to four bytes of seven bits, that many bytes) through `n` bytes handed to the reader.
// libmosquitto asks for the command byte and each length byte alone and for the body in one
// read, so the loop turns once or twice per call.
static void track(const unsigned char *p, size_t n) {
    while (n > 0) {
        switch (state.phase) {
        case at_command:
            state.phase = in_length;
            state.length_shift = 0;
            state.body_left = 0;
            p++;
            n--;
            break;
        case in_length: {
            unsigned char b = *p++;
            n--;
            state.body_left |= (size_t)(b & 0x7F) << state.length_shift;
            state.length_shift += 7;
            if (b & 0x80) {
                if (state.length_shift >= 28) state.phase = lost;
            } else if (state.body_left == 0) {
                state.phase = at_command;
                state.packets++;
            } else {
                state.phase = in_body;
            }
            break;
        }
        case in_body: {
            size_t take = n < state.body_left ? n : state.body_left;
            state.body_left -= take;
            p += take;
            n -= take;
            if (state.body_left == 0) {
                state.phase = at_command;
                state.packets++;
            }
            break;
        }
        default:
            return;
        }
    }
}

// Fills the empty read-ahead buffer with one read(2) and returns what it returned; -1 with
// EAGAIN without a system call when the last fill took less than it asked for (the socket was
// empty then; the loop's poll decides whether more came).
static ssize_t refill(void) {
    if (state.drained) {
        state.drained = 0;
        errno = EAGAIN;
        return -1;
    }
    counts[count_kernel_reads]++;
    ssize_t got = kernel_read(state.fd, state.bytes, read_capacity);
    if (got <= 0) return got;  // end of stream, or an error with errno set (EAGAIN)
    state.start = 0;
    state.end = (size_t)got;
    state.drained = (size_t)got < read_capacity;
    return got;
}

static ssize_t kernel_write(int fd, const void *buffer, size_t count) {
    return syscall(SYS_write, fd, buffer, count);
}

ssize_t read(int fd, void *buffer, size_t count) {
    if (fd < 0 || fd != state.fd || count == 0) return kernel_read(fd, buffer, count);
    counts[count_reads]++;
    if (state.start == state.end) {
        ssize_t got = refill();
        if (got <= 0) return got;
    }
    size_t n = state.end - state.start;
    if (n > count) n = count;
    memcpy(buffer, state.bytes + state.start, n);
    track(state.bytes + state.start, n);
    state.start += n;
    return (ssize_t)n;
}

void pb_readahead_publishes(int protocol) {
    if (state.fd >= 0) state.publishes = protocol == 4 || protocol == 5 ? protocol : 0;
}

// 1 when every byte of `p` is printable ASCII (0x20 to 0x7E), which libmosquitto's
// mosquitto_validate_utf8 accepts as a topic; anything else is left to it.
static int printable_ascii(const unsigned char *p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (p[i] < 0x20 || p[i] > 0x7E) return 0;
    }
    return 1;
}

static ssize_t collect_within(struct socketbuffers *s, const void *buffer, size_t count, size_t limit);

// Moves the calling thread's waiting PUBACKs into its write-behind, after what is pending (past
// its limit too: they are at most 512 bytes); without memory they wait for the next flush.
static void move_acks(void) {
    if (state.acks_length == 0) return;
    size_t length = state.acks_length;
    state.acks_length = 0;
    if (collect_within(&state, state.acks, length, SIZE_MAX) < 0) state.acks_length = length;
}

int pb_readahead_take_publish(size_t out[6], int acknowledge) {
    if (state.fd < 0 || state.publishes == 0 || state.phase != at_command || state.packets == 0) return 0;
    if (state.start == state.end) {
        if (state.drained) return 0;  // the reader's next read answers EAGAIN without a read(2)
        ssize_t got = refill();
        if (got <= 0) {
            // The socket is empty: so is the reader's next read, without a read(2). At the end
            // of the stream or on an error the reader's next read(2) sees it.
            if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) state.drained = 1;
            return 0;
        }
    }
    const unsigned char *p = state.bytes + state.start;
    size_t available = state.end - state.start;
    // PUBLISH without DUP, the retain bit either way: QoS 0, or QoS 1 when asked to acknowledge.
    int qos1 = (p[0] & 0xFE) == 0x32;
    if ((p[0] & 0xFE) != 0x30 && !(qos1 && acknowledge)) return 0;
    size_t remaining = 0, at = 1;
    for (unsigned shift = 0;; shift += 7) {
        if (at >= available || at > 4) return 0;  // not all here, or malformed
        unsigned char b = p[at++];
        remaining |= (size_t)(b & 0x7F) << shift;
        if (!(b & 0x80)) break;
    }
    if (remaining > available - at || remaining < 2) return 0;
    const unsigned char *body = p + at;
    size_t topic_length = ((size_t)body[0] << 8) | body[1];
    if (topic_length == 0 || topic_length > remaining - 2) return 0;
    if (!printable_ascii(body + 2, topic_length)) return 0;
    size_t payload_at = 2 + topic_length;
    size_t mid = 0;
    if (qos1) {
        if (payload_at + 2 > remaining) return 0;
        mid = ((size_t)body[payload_at] << 8) | body[payload_at + 1];
        if (mid == 0) return 0;  // a protocol error: the reader's to refuse
        payload_at += 2;
    }
    if (state.publishes == 5) {
        // The properties' length: only a packet without properties is ours.
        if (payload_at >= remaining || body[payload_at] != 0) return 0;
        payload_at++;
    }
    if (qos1) {
        // PUBACK (MQTT 3.1.1 and 5 section 3.4: reason Success, no properties: the packet
        // identifier alone), kept for the next write step.
        if (state.acks_length + 4 > sizeof state.acks) return 0;  // too many since it: the reader's
        unsigned char *ack = state.acks + state.acks_length;
        ack[0] = 0x40;
        ack[1] = 0x02;
        ack[2] = (unsigned char)(mid >> 8);
        ack[3] = (unsigned char)(mid & 0xFF);
        state.acks_length += 4;
        counts[count_writes]++;
    }
    out[0] = (size_t)(uintptr_t)(body + 2);
    out[1] = topic_length;
    out[2] = (size_t)(uintptr_t)(body + payload_at);
    out[3] = remaining - payload_at;
    out[4] = p[0] & 0x01;
    out[5] = mid;
    state.start += at + remaining;
    state.packets++;
    return 1;
}

static size_t pending_of(const struct socketbuffers *s) {
    return s->out_end - s->out_start;
}

static size_t pending(void) {
    return pending_of(&state);
}

// Muted descriptors, by number: 0 is not muted, n > 0 is muted with n - 1 writes answered.
// libmosquitto's wake-up socket pairs of clients whose loop never reads them; any thread may
// write to them. One relaxed load per write of the process decides.
enum { muted_limit = 1024 };
static _Atomic unsigned long muted[muted_limit];

static int is_muted(int fd) {
    return fd >= 0 && fd < muted_limit && atomic_load_explicit(&muted[fd], memory_order_relaxed) != 0;
}

int pb_mute_writes(int fd) {
    if (fd < 0 || fd >= muted_limit) return -1;
    atomic_store_explicit(&muted[fd], 1, memory_order_relaxed);
    return 0;
}

unsigned long pb_muted_writes(int fd) {
    if (fd < 0 || fd >= muted_limit) return 0;
    unsigned long n = atomic_load_explicit(&muted[fd], memory_order_relaxed);
    return n > 0 ? n - 1 : 0;
}

static _Thread_local int capturing;
static _Thread_local int captured_write_end = -1;

int socketpair(int domain, int type, int protocol, int sv[2]) {
    int rc = (int)syscall(SYS_socketpair, domain, type, protocol, sv);
    if (rc == 0 && capturing) captured_write_end = sv[1];
    return rc;
}

void pb_socketpair_capture_begin(void) {
    capturing = 1;
    captured_write_end = -1;
}

int pb_socketpair_capture_end(void) {
    capturing = 0;
    int fd = captured_write_end;
    captured_write_end = -1;
    return fd;
}

// Appends to `s`'s write-behind: EAGAIN past `limit` pending bytes or without memory.
static ssize_t collect_within(struct socketbuffers *s, const void *buffer, size_t count, size_t limit) {
    if (count == 0) return 0;
    if (pending_of(s) > 0 && pending_of(s) + count > limit) {
        errno = EAGAIN;
        return -1;
    }
    if (s->out_end + count > s->out_capacity) {
        // Move what is pending to the front, then grow if that is not enough.
        size_t left = pending_of(s);
        if (left > 0 && s->out_start > 0) memmove(s->out, s->out + s->out_start, left);
        s->out_start = 0;
        s->out_end = left;
        if (left + count > s->out_capacity) {
            size_t capacity = s->out_capacity ? s->out_capacity : 16 * 1024;
            while (capacity < left + count) capacity *= 2;
            unsigned char *grown = realloc(s->out, capacity);
            if (grown == NULL) {
                errno = EAGAIN;  // libmosquitto keeps the packet and tries again later
                return -1;
            }
            s->out = grown;
            s->out_capacity = capacity;
        }
    }
    memcpy(s->out + s->out_end, buffer, count);
    s->out_end += count;
    return (ssize_t)count;
}

// collect_within at the write-behind's limit: past it, libmosquitto takes EAGAIN as "socket full".
static ssize_t collect(struct socketbuffers *s, const void *buffer, size_t count) {
    return collect_within(s, buffer, count, write_limit);
}

ssize_t write(int fd, const void *buffer, size_t count) {
    if (fd < 0 || fd != state.fd) {
        if (guest != NULL && fd == guest->fd && guest->collecting) return collect(guest, buffer, count);
        if (is_muted(fd)) {
            atomic_fetch_add_explicit(&muted[fd], 1, memory_order_relaxed);
            return (ssize_t)count;
        }
        return kernel_write(fd, buffer, count);
    }
    counts[count_writes]++;
    if (!state.collecting) {
        counts[count_kernel_writes]++;
        return kernel_write(fd, buffer, count);
    }
    return collect(&state, buffer, count);
}

// Sends what `s` has pending (0 all sent, 1 the socket is full, -1 an error); counts each
// write(2) in `kernel_writes` when given.
static int flush(struct socketbuffers *s, unsigned long *kernel_writes) {
    while (pending_of(s) > 0) {
        if (kernel_writes) (*kernel_writes)++;
        ssize_t sent = kernel_write(s->fd, s->out + s->out_start, pending_of(s));
        if (sent > 0) {
            s->out_start += (size_t)sent;
            continue;
        }
        if (sent < 0 && errno == EINTR) continue;
        if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 1;
        int saved = errno;
        s->out_start = s->out_end = 0;
        errno = saved ? saved : EPIPE;
        return -1;
    }
    s->out_start = s->out_end = 0;
    if (s->out_capacity > write_limit) {  // a burst grew it: give the memory back
        free(s->out);
        s->out = NULL;
        s->out_capacity = 0;
    }
    return 0;
}

int pb_writebehind_flush(void) {
    move_acks();
    return flush(&state, &counts[count_kernel_writes]);
}

void pb_writebehind_begin(void) {
    if (state.fd < 0) return;
    move_acks();
    state.collecting = 1;
}

int pb_writebehind_end(void) {
    state.collecting = 0;
    return state.fd >= 0 ? pb_writebehind_flush() : 0;
}

size_t pb_writebehind_pending(void) {
    return state.fd < 0 ? 0 : pending() + state.acks_length;
}

int pb_writebehind_append(int fd, const void *bytes, size_t count) {
    if (fd < 0 || fd != state.fd || count == 0) return -1;
    if (collect(&state, bytes, count) < 0) return -1;
    counts[count_writes]++;
    return 0;
}

void *pb_writebehind_share(void) {
    return &state;
}

int pb_writebehind_guest_begin(void *shared, int fd) {
    struct socketbuffers *s = shared;
    if (s == NULL || s == &state || guest != NULL || fd < 0 || s->fd != fd || s->collecting) return -1;
    if (pending_of(s) > 0) {
        int flushed = flush(s, &guest_kernel_writes);
        if (flushed != 0) return flushed;
    }
    guest = s;
    s->collecting = 1;
    return 0;
}

int pb_writebehind_guest_end(void) {
    struct socketbuffers *s = guest;
    if (s == NULL) return 0;
    guest = NULL;
    s->collecting = 0;
    return flush(s, &guest_kernel_writes);
}

unsigned long pb_writebehind_guest_writes(void) {
    return guest_kernel_writes;
}

int close(int fd) {
    // Unmute before the number can be handed out again.
    if (is_muted(fd)) atomic_store_explicit(&muted[fd], 0, memory_order_relaxed);
    if (fd >= 0 && fd == state.fd) {
        state.collecting = 0;
        state.acks_length = 0;  // not sent: see acks
        (void)pb_writebehind_flush();  // best effort: the socket is going away
        pb_readahead_detach();
    }
    return (int)syscall(SYS_close, fd);
}

int pb_readahead_attach(int fd) {
    pb_readahead_detach();
    state.bytes = malloc(read_capacity);
    if (state.bytes == NULL) return -1;
    state.fd = fd;
    return 0;
}

void pb_readahead_detach(void) {
    state.fd = -1;
    state.start = state.end = 0;
    state.drained = 0;
    state.phase = at_command;
    state.packets = 0;
    state.publishes = 0;
    state.acks_length = 0;
    free(state.bytes);
    state.bytes = NULL;
    state.collecting = 0;
    state.out_start = state.out_end = 0;
    free(state.out);
    state.out = NULL;
    state.out_capacity = 0;
}

size_t pb_readahead_buffered(void) {
    return state.fd < 0 ? 0 : state.end - state.start;
}

void pb_socketbuffers_counts(unsigned long out[4]) {
    for (int i = 0; i < 4; i++) out[i] = counts[i];
}

#endif  // PB_SOCKETBUFFERS_COMPILED_OUT

int pb_poll_nanoseconds(void *fds, unsigned long count, long nanoseconds) {
    struct timespec wait = { .tv_sec = nanoseconds / 1000000000L, .tv_nsec = nanoseconds % 1000000000L };
    return ppoll((struct pollfd *)fds, (nfds_t)count, &wait, NULL);
}
