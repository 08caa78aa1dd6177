/*
 * mqttbench: the load generator and sink for bench/run.sh (libmosquitto, one process,
 * one clock). Modes:
 *   flood   subscribe the sink, publish N messages as fast as the broker takes them,
 *           wait for the expected number at the sink.
 *   fixed   the same at a fixed rate (-r msg/s for -d seconds): end-to-end latency.
 *   pubonly publish N with no subscriber: the publisher's own rate.
 *   drain   queue N QoS 1 messages for an offline persistent sink, then time how fast
 *           the sink takes them: the sink's own rate.
 * Payload: {"n":J,"t":NANOS,"drop":BOOL,"who":"Alice","room":"rK"}; the sink reads "t":
 * (the publish time on this machine's clock) from whatever it receives (a display message
 * carries the payload as user_info).
 * Output: one line of key=value pairs on stdout.
 * The sink's TCP state (bench/README.md, "The default-broker tail"): -A re-arms TCP_QUICKACK
 * after each message; -W MS waits MS after the SUBACK before publishing (the sink's delayed
 * ACK of the SUBACK fires first); -k S sets the sink's keepalive (its PINGREQs); -S adds a
 * second subscriber on the same filter (the broker writes to it between two sink messages).
 * -w N: at most N QoS>0 publishes unacknowledged (the publisher waits, and libmosquitto's
 * in-flight maximum is N); -w 0: no in-flight limit, as a busy installation's publisher may
 * run (bench/ingestcase.py): QoS>0 publishes are then written on a plain socket of our own,
 * without waiting for PUBACKs (only MQTT's 65 535 packet identifiers bound them). Not
 * libmosquitto: its send maximum cannot be switched off (0 means 65 535), and every publish
 * and every PUBACK walks its whole list of unacknowledged messages while under that maximum
 * (message__release_to_inflight, lib/messages_mosq.c of 2.0.11), which is quadratic in a
 * flood (a relay QoS 1 flood of 100 000 fell from ~10 000 to ~1 000 msg/s).
 */
#define _GNU_SOURCE
#include <mosquitto.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *host = "127.0.0.1";
static int port = 1883;
static int pub_qos = 0, sub_qos = 0;
static long count = 1000, expected = -1, topics = 16, routes = 1;
static const char *sub_filter = "bench/#";
static const char *prefix = "bench";
static double rate = 1000, seconds = 10, idle_timeout = 5;
static int window = 1000;       /* -w: QoS>0 publishes unacknowledged at most; 0: no limit */
static int quickack = 0; /* -A: the sink acknowledges every segment at once */
static int sink_keepalive = 60;  /* -k: the sink's MQTT keepalive, seconds */
static double settle_ms = 0;     /* -W: pause between the sink's SUBACK and the first publish */
static int bystander = 0;        /* -S: a second subscriber on the sink's filter, which only reads */
static int bystander_subscribed = 0;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static long received = 0, published_done = 0, outstanding = 0;
static int subscribed = 0, connected_pub = 0, connected_sub = 0, drain = 0;
static int64_t first_rx = 0, last_rx = 0;
static int64_t *latencies = NULL;
static long latency_cap = 0, latency_count = 0;

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void die(const char *what, int rc) {
    fprintf(stderr, "mqttbench: %s: %s\n", what, mosquitto_strerror(rc));
    exit(1);
}

static void on_sub_connect(struct mosquitto *m, void *u, int rc) {
    (void)u;
    if (rc != 0) { fprintf(stderr, "mqttbench: sink refused: %d\n", rc); exit(1); }
    pthread_mutex_lock(&lock);
    connected_sub = 1;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    if (drain) return; /* the persistent session holds the subscription */
    int r = mosquitto_subscribe(m, NULL, sub_filter, sub_qos);
    if (r != MOSQ_ERR_SUCCESS) die("subscribe", r);
}

static void on_subscribe(struct mosquitto *m, void *u, int mid, int n, const int *granted) {
    (void)m; (void)u; (void)mid; (void)n; (void)granted;
    pthread_mutex_lock(&lock);
    subscribed = 1;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
}

/* The bystander (-S): the broker then writes to another client between two messages to the
 * sink, as it writes each input to a bridge between two display messages. */
static void on_bystander_connect(struct mosquitto *m, void *u, int rc) {
    (void)u;
    if (rc != 0) { fprintf(stderr, "mqttbench: bystander refused: %d\n", rc); exit(1); }
    int r = mosquitto_subscribe(m, NULL, sub_filter, sub_qos);
    if (r != MOSQ_ERR_SUCCESS) die("bystander subscribe", r);
}

static void on_bystander_subscribe(struct mosquitto *m, void *u, int mid, int n, const int *granted) {
    (void)m; (void)u; (void)mid; (void)n; (void)granted;
    pthread_mutex_lock(&lock);
    bystander_subscribed = 1;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
}

static void on_message(struct mosquitto *m, void *u, const struct mosquitto_message *msg) {
    (void)m; (void)u;
    int64_t t = now_ns();
    int64_t sent = -1;
    if (quickack) {
        /* Linux delays the ACK of a small segment on a receive-only connection (up to
         * 40 ms); the broker's Nagle then holds the next message for it. */
        int one = 1, fd = mosquitto_socket(m);
        if (fd >= 0) setsockopt(fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof one);
    }
    const char *p = msg->payload ? memmem(msg->payload, (size_t)msg->payloadlen, "\"t\":", 4) : NULL;
    if (p) sent = strtoll(p + 4, NULL, 10);
    pthread_mutex_lock(&lock);
    if (received == 0) first_rx = t;
    last_rx = t;
    received++;
    if (sent > 0 && latency_count < latency_cap) latencies[latency_count++] = t - sent;
    if (expected > 0 && received >= expected) pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
}

static void on_pub_connect(struct mosquitto *m, void *u, int rc) {
    (void)m; (void)u;
    if (rc != 0) { fprintf(stderr, "mqttbench: publisher refused: %d\n", rc); exit(1); }
    pthread_mutex_lock(&lock);
    connected_pub = 1;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
}

static void on_publish(struct mosquitto *m, void *u, int mid) {
    (void)m; (void)u; (void)mid;
    pthread_mutex_lock(&lock);
    published_done++;
    outstanding--;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
}

static struct mosquitto *client(const char *id, int clean, void *userdata, int version) {
    struct mosquitto *m = mosquitto_new(id, clean, userdata);
    if (!m) { fprintf(stderr, "mqttbench: mosquitto_new failed\n"); exit(1); }
    mosquitto_int_option(m, MOSQ_OPT_PROTOCOL_VERSION, version);
    mosquitto_int_option(m, MOSQ_OPT_TCP_NODELAY, 1);
    mosquitto_max_inflight_messages_set(m, (unsigned)window);
    return m;
}

static void wait_flag(int *flag) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 10;
    pthread_mutex_lock(&lock);
    while (!*flag) {
        if (pthread_cond_timedwait(&cond, &lock, &deadline) != 0) {
            fprintf(stderr, "mqttbench: timed out connecting/subscribing\n");
            exit(1);
        }
    }
    pthread_mutex_unlock(&lock);
}

/* Waits until `*value >= target`, or no progress for idle_timeout seconds. */
static void wait_count(long *value, long target) {
    long seen = -1;
    int64_t progress = now_ns();
    pthread_mutex_lock(&lock);
    while (*value < target) {
        if (*value != seen) { seen = *value; progress = now_ns(); }
        if (now_ns() - progress > (int64_t)(idle_timeout * 1e9)) break;
        struct timespec deadline;
        clock_gettime(CLOCK_REALTIME, &deadline);
        deadline.tv_nsec += 50000000;
        if (deadline.tv_nsec >= 1000000000) { deadline.tv_sec++; deadline.tv_nsec -= 1000000000; }
        pthread_cond_timedwait(&cond, &lock, &deadline);
    }
    pthread_mutex_unlock(&lock);
}


/* The publisher of -w 0 with QoS>0: MQTT 3.1.1 on a plain socket, publishes gathered in a
 * buffer and written when it fills (or at the end), PUBACKs counted by a reader thread. */
static int raw_fd = -1;
static unsigned char raw_buf[1 << 16];
static size_t raw_len = 0;

static void raw_flush(void) {
    size_t off = 0;
    while (off < raw_len) {
        ssize_t w = write(raw_fd, raw_buf + off, raw_len - off);
        if (w <= 0) { perror("mqttbench: publisher write"); exit(1); }
        off += (size_t)w;
    }
    raw_len = 0;
}

/* Appends one packet: `kind`, the remaining length, then `a` and `b`. */
static void raw_packet(unsigned char kind, const void *a, size_t na, const void *b, size_t nb) {
    unsigned char head[5];
    size_t n = na + nb, h = 0;
    head[h++] = kind;
    do { unsigned char byte = n % 128; n /= 128; head[h++] = byte | (n ? 128 : 0); } while (n);
    if (raw_len + h + na + nb > sizeof raw_buf) raw_flush();
    memcpy(raw_buf + raw_len, head, h); raw_len += h;
    memcpy(raw_buf + raw_len, a, na); raw_len += na;
    memcpy(raw_buf + raw_len, b, nb); raw_len += nb;
}

static int raw_read_full(unsigned char *p, size_t n) {
    while (n > 0) {
        ssize_t r = read(raw_fd, p, n);
        if (r <= 0) return -1;
        p += r; n -= (size_t)r;
    }
    return 0;
}

/* Reads packets until the socket closes; each PUBACK is one publish done. */
static void *raw_reader(void *u) {
    (void)u;
    unsigned char head, byte, body[256];
    for (;;) {
        if (raw_read_full(&head, 1)) return NULL;
        size_t n = 0, mult = 1;
        do { if (raw_read_full(&byte, 1)) return NULL; n += (byte & 127) * mult; mult *= 128; } while (byte & 128);
        while (n > 0) {
            size_t chunk = n < sizeof body ? n : sizeof body;
            if (raw_read_full(body, chunk)) return NULL;
            n -= chunk;
        }
        if ((head & 0xF0) == 0x40) {
            pthread_mutex_lock(&lock);
            published_done++;
            outstanding--;
            pthread_cond_broadcast(&cond);
            pthread_mutex_unlock(&lock);
        }
    }
}

static void raw_connect(const char *id) {
    char service[16];
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *ai;
    snprintf(service, sizeof service, "%d", port);
    if (getaddrinfo(host, service, &hints, &ai) != 0) { fprintf(stderr, "mqttbench: cannot resolve %s\n", host); exit(1); }
    raw_fd = socket(ai->ai_family, SOCK_STREAM, 0);
    if (raw_fd < 0 || connect(raw_fd, ai->ai_addr, ai->ai_addrlen) != 0) { perror("mqttbench: publisher connect"); exit(1); }
    freeaddrinfo(ai);
    int one = 1;
    setsockopt(raw_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    unsigned char vh[12] = { 0, 4, 'M', 'Q', 'T', 'T', 4, 0x02, 0, 0 }; /* clean session, no keepalive */
    size_t idlen = strlen(id);
    vh[10] = (unsigned char)(idlen >> 8); vh[11] = (unsigned char)idlen;
    raw_packet(0x10, vh, sizeof vh, id, idlen);
    raw_flush();
    unsigned char connack[4];
    if (raw_read_full(connack, 4) || connack[0] != 0x20 || connack[3] != 0) {
        fprintf(stderr, "mqttbench: publisher refused\n");
        exit(1);
    }
    pthread_t t;
    pthread_create(&t, NULL, raw_reader, NULL);
    pthread_detach(t);
}

static void raw_publish(const char *topic, const char *payload, int len, long j) {
    unsigned char vh[2 + 128 + 2];
    size_t tl = strlen(topic), h = 0;
    vh[h++] = (unsigned char)(tl >> 8); vh[h++] = (unsigned char)tl;
    memcpy(vh + h, topic, tl); h += tl;
    unsigned mid = (unsigned)(j % 65535) + 1;
    vh[h++] = (unsigned char)(mid >> 8); vh[h++] = (unsigned char)mid;
    pthread_mutex_lock(&lock);
    while (outstanding >= 65535) {  /* every packet identifier in use */
        pthread_mutex_unlock(&lock);
        raw_flush();
        pthread_mutex_lock(&lock);
        if (outstanding >= 65535) pthread_cond_wait(&cond, &lock);
    }
    outstanding++;
    pthread_mutex_unlock(&lock);
    raw_packet((unsigned char)(0x30 | (pub_qos << 1)), vh, h, payload, (size_t)len);
}

static void raw_disconnect(void) {
    raw_packet(0xE0, NULL, 0, NULL, 0);
    raw_flush();
    shutdown(raw_fd, SHUT_WR);
}

static void publish_one(struct mosquitto *m, long j) {
    char topic[128], payload[160];
    long t = j % topics;
    snprintf(topic, sizeof topic, "%s/r%ld/t%ld", prefix, t % routes, t);
    int len = snprintf(payload, sizeof payload,
                       "{\"n\":%ld,\"t\":%lld,\"drop\":%s,\"who\":\"Alice\",\"room\":\"r%ld\"}",
                       j, (long long)now_ns(), ((j / topics) % 2) ? "true" : "false", t % 100);
    if (raw_fd >= 0) {
        raw_publish(topic, payload, len, j);
        return;
    }
    if (pub_qos > 0) {
        pthread_mutex_lock(&lock);
        while (window > 0 && outstanding >= window) pthread_cond_wait(&cond, &lock);
        outstanding++;
        pthread_mutex_unlock(&lock);
    }
    int rc = mosquitto_publish(m, NULL, topic, len, payload, pub_qos, false);
    if (rc != MOSQ_ERR_SUCCESS) die("publish", rc);
}

static int cmp64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static double pct(double q) {
    if (latency_count == 0) return -1;
    long i = (long)(q * (double)(latency_count - 1) + 0.5);
    return (double)latencies[i] / 1e6;
}

static void usage(void) {
    fprintf(stderr, "usage: mqttbench flood|fixed|pubonly|drain [-h host] [-p port] [-q pubqos] [-Q subqos]\n"
                    "  [-n count] [-e expected] [-T topics] [-R routes] [-P prefix] [-s subfilter]\n"
                    "  [-r rate] [-d seconds] [-w window] [-i idle_timeout] [-A] [-k sink_keepalive]\n"
                    "  [-W ms_after_suback] [-S]\n");
    exit(2);
}

int main(int argc, char **argv) {
    if (argc < 2) usage();
    const char *mode = argv[1];
    int opt;
    optind = 2;
    while ((opt = getopt(argc, argv, "h:p:q:Q:n:e:T:R:P:s:r:d:w:i:Ak:W:S")) != -1) {
        switch (opt) {
        case 'h': host = optarg; break;
        case 'p': port = atoi(optarg); break;
        case 'q': pub_qos = atoi(optarg); break;
        case 'Q': sub_qos = atoi(optarg); break;
        case 'n': count = atol(optarg); break;
        case 'e': expected = atol(optarg); break;
        case 'T': topics = atol(optarg); break;
        case 'R': routes = atol(optarg); break;
        case 'P': prefix = optarg; break;
        case 's': sub_filter = optarg; break;
        case 'r': rate = atof(optarg); break;
        case 'd': seconds = atof(optarg); break;
        case 'w': window = atoi(optarg); break;
        case 'i': idle_timeout = atof(optarg); break;
        case 'A': quickack = 1; break;
        case 'k': sink_keepalive = atoi(optarg); break;
        case 'W': settle_ms = atof(optarg); break;
        case 'S': bystander = 1; break;
        default: usage();
        }
    }
    int fixed = strcmp(mode, "fixed") == 0, flood = strcmp(mode, "flood") == 0;
    int pubonly = strcmp(mode, "pubonly") == 0;
    drain = strcmp(mode, "drain") == 0;
    if (!fixed && !flood && !pubonly && !drain) usage();
    if (fixed) count = (long)(rate * seconds);
    if (expected < 0) expected = count;
    latency_cap = expected + 16;
    latencies = calloc((size_t)latency_cap, sizeof *latencies);
    mosquitto_lib_init();
    char id[64];

    struct mosquitto *sink = NULL;
    if (!pubonly) {
        snprintf(id, sizeof id, "bench-sink-%d", getpid());
        sink = client(id, !drain, NULL, MQTT_PROTOCOL_V311);
        mosquitto_connect_callback_set(sink, on_sub_connect);
        mosquitto_subscribe_callback_set(sink, on_subscribe);
        mosquitto_message_callback_set(sink, on_message);
        int rc = mosquitto_connect(sink, host, port, sink_keepalive);
        if (rc) die("sink connect", rc);
        if ((rc = mosquitto_loop_start(sink))) die("sink loop", rc);
        if (drain) {
            /* First connection: subscribe by hand, then leave the persistent session. */
            wait_flag(&connected_sub);
            mosquitto_subscribe(sink, NULL, sub_filter, 1);
        }
        wait_flag(&subscribed);
        if (drain) {
            mosquitto_disconnect(sink);
            mosquitto_loop_stop(sink, false);
            connected_sub = 0;
        }
    }

    struct mosquitto *other = NULL;
    if (bystander && !pubonly && !drain) {
        snprintf(id, sizeof id, "bench-bystander-%d", getpid());
        other = client(id, 1, NULL, MQTT_PROTOCOL_V311);
        mosquitto_connect_callback_set(other, on_bystander_connect);
        mosquitto_subscribe_callback_set(other, on_bystander_subscribe);
        int rc = mosquitto_connect(other, host, port, 60);
        if (rc) die("bystander connect", rc);
        if ((rc = mosquitto_loop_start(other))) die("bystander loop", rc);
        wait_flag(&bystander_subscribed);
    }

    if (settle_ms > 0) {
        /* Let the sink's socket settle: Linux's delayed ACK of the SUBACK (up to 40 ms) fires
         * and takes the socket out of interactive ("pingpong") mode before any load arrives. */
        struct timespec pause = { (time_t)(settle_ms / 1000), (long)((settle_ms - 1000 * (long)(settle_ms / 1000)) * 1e6) };
        nanosleep(&pause, NULL);
    }

    snprintf(id, sizeof id, "bench-pub-%d", getpid());
    int raw = window <= 0 && pub_qos > 0;
    if (raw) raw_connect(id);
    struct mosquitto *pub = client(id, 1, NULL, MQTT_PROTOCOL_V311);
    mosquitto_connect_callback_set(pub, on_pub_connect);
    mosquitto_publish_callback_set(pub, on_publish);
    int rc = 0;
    if (!raw) {
        rc = mosquitto_connect(pub, host, port, 60);
        if (rc) die("publisher connect", rc);
        if ((rc = mosquitto_loop_start(pub))) die("publisher loop", rc);
        wait_flag(&connected_pub);
    }

    int64_t t0 = now_ns();
    if (fixed) {
        struct timespec next;
        clock_gettime(CLOCK_MONOTONIC, &next);
        long step = (long)(1e9 / rate);
        for (long j = 0; j < count; j++) {
            next.tv_nsec += step;
            while (next.tv_nsec >= 1000000000) { next.tv_sec++; next.tv_nsec -= 1000000000; }
            clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
            publish_one(pub, j);
            if (raw) raw_flush();
        }
    } else {
        for (long j = 0; j < count; j++) publish_one(pub, j);
        if (raw) raw_flush();
    }
    int64_t t_end;
    if (pubonly || drain) {
        wait_count(&published_done, count);
        t_end = now_ns();
    }
    if (drain) {
        /* Every message now sits in the broker for the sink; time its delivery alone. */
        received = 0;
        t0 = now_ns();
        if ((rc = mosquitto_reconnect(sink))) die("sink reconnect", rc);
        if ((rc = mosquitto_loop_start(sink))) die("sink loop", rc);
    }
    if (!pubonly) {
        wait_count(&received, expected);
        pthread_mutex_lock(&lock);
        t_end = last_rx;
        pthread_mutex_unlock(&lock);
    }
    long got = pubonly ? published_done : received;
    double elapsed = (double)(t_end - t0) / 1e9;
    long base = pubonly ? count : expected;
    qsort(latencies, (size_t)latency_count, sizeof *latencies, cmp64);
    printf("mode=%s sent=%ld expected=%ld received=%ld elapsed=%.6f rate=%.1f p50_ms=%.3f p99_ms=%.3f max_ms=%.3f\n",
           mode, count, base, got, elapsed, elapsed > 0 ? (double)(drain ? got : count) / elapsed : 0,
           pct(0.50), pct(0.99), pct(1.0));
    fflush(stdout);
    if (drain && sink) {
        /* Leave no persistent session behind. */
        mosquitto_disconnect(sink);
        mosquitto_loop_stop(sink, false);
    }
    if (raw) {
        raw_disconnect();
    } else {
        mosquitto_disconnect(pub);
        mosquitto_loop_stop(pub, false);
    }
    if (sink && !drain) { mosquitto_disconnect(sink); mosquitto_loop_stop(sink, false); }
    if (other) { mosquitto_disconnect(other); mosquitto_loop_stop(other, false); }
    mosquitto_lib_cleanup();
    return got >= base ? 0 : 3;
}
