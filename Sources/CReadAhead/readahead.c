// See include/readahead.h. The definition of read() below takes the place of the C
// library's for every caller in the process (the executable's symbols come first in the
// dynamic linker's search, so libmosquitto's reference binds here too).
#define _GNU_SOURCE
#include "readahead.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { capacity = 64 * 1024 };

struct readahead {
    int fd;
    size_t start, end;
    unsigned long served, refills;
    unsigned char *bytes;
};

// One per thread; only the thread that attached a socket ever sees it attached.
static _Thread_local struct readahead state = { .fd = -1 };

static ssize_t kernel_read(int fd, void *buffer, size_t count) {
    return syscall(SYS_read, fd, buffer, count);
}

ssize_t read(int fd, void *buffer, size_t count) {
    if (fd < 0 || fd != state.fd || count == 0) return kernel_read(fd, buffer, count);
    if (state.start == state.end) {
        ssize_t got = kernel_read(fd, state.bytes, capacity);
        if (got <= 0) return got;  // end of stream, or an error with errno set (EAGAIN)
        state.start = 0;
        state.end = (size_t)got;
        state.refills++;
    }
    size_t n = state.end - state.start;
    if (n > count) n = count;
    memcpy(buffer, state.bytes + state.start, n);
    state.start += n;
    state.served++;
    return (ssize_t)n;
}

int pb_readahead_attach(int fd) {
    pb_readahead_detach();
    state.bytes = malloc(capacity);
    if (state.bytes == NULL) return -1;
    state.fd = fd;
    return 0;
}

void pb_readahead_detach(void) {
    state.fd = -1;
    state.start = state.end = 0;
    free(state.bytes);
    state.bytes = NULL;
}

size_t pb_readahead_buffered(void) {
    return state.fd < 0 ? 0 : state.end - state.start;
}

void pb_readahead_counts(unsigned long *served, unsigned long *refills) {
    *served = state.served;
    *refills = state.refills;
}
