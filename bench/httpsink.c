/* The outputs benchmark's loopback HTTP service (bench/outputs.py): answers every request
 * with `STATUS` (204 by default) after `DELAY_MS`, counts what it answered, and tells the
 * count on `GET /count` as `{"count":N,"first":T,"last":T}` (CLOCK_MONOTONIC seconds of the
 * first and last answer that was counted). Built on libmicrohttpd (Debian's
 * libmicrohttpd-dev), so that the service is not what limits a delivery rate: one epoll
 * thread, keep-alive, a few microseconds per request. With a delay, a thread per connection
 * sleeps before answering (a slow service).
 *
 *     httpsink PORT [DELAY_MS] [STATUS]
 *
 * Binds 127.0.0.1 only; prints "listening PORT" once ready; stops on SIGTERM or SIGINT.
 */
#include <microhttpd.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

static atomic_long count;
static _Atomic double first, last;
static int delay_ms, status_code = 204;
static volatile sig_atomic_t stop;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                              const char *version, const char *upload, size_t *upload_size, void **state) {
    (void)cls; (void)version; (void)upload;
    static int marker;
    if (*state == NULL) { *state = &marker; return MHD_YES; }  /* headers only: the body comes next */
    if (*upload_size > 0) { *upload_size = 0; return MHD_YES; } /* the body is read and dropped */
    struct MHD_Response *r;
    int code;
    if (strcmp(method, "GET") == 0 && strcmp(url, "/count") == 0) {
        char text[128];
        int n = snprintf(text, sizeof text, "{\"count\":%ld,\"first\":%.6f,\"last\":%.6f}",
                         atomic_load(&count), atomic_load(&first), atomic_load(&last));
        r = MHD_create_response_from_buffer((size_t)n, text, MHD_RESPMEM_MUST_COPY);
        code = 200;
    } else {
        if (delay_ms > 0) usleep((useconds_t)delay_ms * 1000);
        double t = now();
        if (atomic_fetch_add(&count, 1) == 0) atomic_store(&first, t);
        atomic_store(&last, t);
        r = MHD_create_response_from_buffer(0, "", MHD_RESPMEM_PERSISTENT);
        code = status_code;
    }
    enum MHD_Result ok = MHD_queue_response(c, (unsigned)code, r);
    MHD_destroy_response(r);
    return ok;
}

static void on_signal(int s) { (void)s; stop = 1; }

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: httpsink PORT [DELAY_MS] [STATUS]\n"); return 2; }
    int port = atoi(argv[1]);
    if (argc > 2) delay_ms = atoi(argv[2]);
    if (argc > 3) status_code = atoi(argv[3]);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
    unsigned flags = delay_ms > 0 ? MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD
                                  : MHD_USE_EPOLL_INTERNAL_THREAD;
    struct MHD_Daemon *d = MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, answer, NULL,
                                            MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
                                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)60,
                                            MHD_OPTION_CONNECTION_LIMIT, (unsigned)1000, MHD_OPTION_END);
    if (!d) { fprintf(stderr, "httpsink: cannot listen on 127.0.0.1:%d\n", port); return 1; }
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    printf("listening %d\n", port);
    fflush(stdout);
    while (!stop) pause();
    MHD_stop_daemon(d);
    return 0;
}
