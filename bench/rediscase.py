"""The `redis` case of bench/bench.py: replicas in one shared-subscription group (`share:`) with
their remembering filters' memory in one Redis (`state.redis`), against the single journal bridge
with the same filters kept in its own memory (bench/README.md, "Shared state on Redis").

Every case here is the QoS 1 flood with the journal on (`fsync: never`) and a filter chain that
starts with the remembering filters — so that every input message costs one decision of the
shared memory — followed by the usual `drop-half` (the sink's expected count is the one of every
other flood):

- 1 filter: a `dedupe` keyed by a value unique to the message (`payload.n` and the publish time
  `payload.t`), so it never suppresses;
- 3 filters: that `dedupe`, a `changed` on the topic whose value is `payload.n` (different for
  every message of a topic), and a `rate_limit` keyed by the publish time (at most 5 a second),
  which never suppress either.

With `state.redis` the three steps of a message go to Redis as one script call; the calls that
wait are sent as one pipeline. Redis is a private redis-server (REDIS_SERVER) on a free loopback
port, started and stopped (by its PID) by this module.
"""
import os
import signal
import statistics
import socket
import subprocess
import time
import urllib.request

REDIS_SERVER = os.environ.get("BENCH_REDIS_SERVER", "/usr/bin/redis-server")
# BENCH_REDIS_NICE=-10: redis-server at that nice value (root lowers it), to see whether the
# serial Redis thread, starved among the replicas' threads on a busy machine, bounds the group.
REDIS_NICE = os.environ.get("BENCH_REDIS_NICE")
REPLICAS = 3


def filter_lines(count):
    """The remembering filters (1 or 3) as `extension.filters` items, before `drop-half`."""
    lines = [
        "    - name: once",
        "      dedupe: {key: \"{{ payload.n }}/{{ payload.t }}\", window: 1s, max_keys: 100000}",
    ]
    if count >= 3:
        lines += [
            "    - name: news",
            "      changed: {key: \"{{ topic }}\", value: \"{{ payload.n }}\", max_keys: 100000}",
            "    - name: pace",
            "      rate_limit: {key: \"{{ payload.t }}\", max: 5, window: 1s, max_keys: 100000}",
        ]
    return lines


def available():
    """Whether redis-server is installed."""
    return os.access(REDIS_SERVER, os.X_OK)


class RedisServer:
    """A private redis-server: loopback only, no persistence, its files in a directory of its own."""

    def __init__(self, workdir, port):
        self.port = port
        self.dir = os.path.join(workdir, f"redis-{port}")
        os.makedirs(self.dir)
        conf = os.path.join(self.dir, "redis.conf")
        with open(conf, "w") as f:
            f.write(f"port {port}\nbind 127.0.0.1\nsave \"\"\nappendonly no\ndir {self.dir}\n"
                    "daemonize no\nlogfile \"\"\n")
        self.log = open(os.path.join(self.dir, "redis.log"), "w")
        nice = (lambda: os.nice(int(REDIS_NICE))) if REDIS_NICE else None
        self.proc = subprocess.Popen([REDIS_SERVER, conf], stdout=self.log, stderr=subprocess.STDOUT, preexec_fn=nice)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                if self.command("PING") == "PONG":
                    return
            except OSError:
                pass
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"redis-server did not start; see {self.log.name}")

    @property
    def pid(self):
        return self.proc.pid

    @property
    def url(self):
        return f"redis://127.0.0.1:{self.port}/0"

    def command(self, *args):
        """One command on a connection of its own; the reply (str, int, list; an error raises)."""
        request = f"*{len(args)}\r\n".encode()
        for a in args:
            a = str(a).encode()
            request += b"$%d\r\n%s\r\n" % (len(a), a)
        with socket.create_connection(("127.0.0.1", self.port), timeout=10) as s:
            s.sendall(request)
            return self._reply(s.makefile("rb"))

    def _reply(self, f):
        line = f.readline()
        if not line:
            raise OSError("redis closed the connection")
        kind, rest = line[:1], line[1:-2].decode()
        if kind == b"+":
            return rest
        if kind == b"-":
            raise RuntimeError(f"redis: {rest}")
        if kind == b":":
            return int(rest)
        if kind == b"$":
            return None if int(rest) < 0 else f.read(int(rest) + 2)[:-2].decode()
        if kind == b"*":
            return [self._reply(f) for _ in range(max(int(rest), 0))]
        raise OSError(f"redis: unexpected reply {line!r}")

    def info(self):
        """The counters read around a case: script calls and their time, reads (≈ pipelines), memory."""
        values = {}
        for line in self.command("INFO", "all").splitlines():
            if ":" in line and not line.startswith("#"):
                k, v = line.split(":", 1)
                values[k] = v
        calls = usec = 0
        for name in ("cmdstat_evalsha", "cmdstat_eval"):
            if name in values:
                fields = dict(p.split("=") for p in values[name].split(","))
                calls += int(fields["calls"])
                usec += int(fields["usec"])
        return {"calls": calls, "usec": usec, "reads": int(values.get("total_reads_processed", 0)),
                "memory": int(values.get("used_memory", 0))}

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()  # SIGTERM to its PID
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def metrics(port):
    """The bridge's /metrics samples: {name with labels: value} (empty when it does not answer)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
            return {line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1])
                    for line in r.read().decode().splitlines() if line and not line.startswith("#")}
    except OSError:
        return {}


def run(bench, broker, qos, n, workdir):
    """The case's rows: [(label, row, key)], key one of ("memory", filters), ("redis", replicas,
    filters); a row is None when the config does not load (state.redis unknown to the binary)."""
    results = []
    for filters in (1, 3):
        journal = os.path.join(workdir, f"mem{filters}-journal")
        row = bench.bridge_flood(f"mem{filters}", broker, qos, n, journal=journal, fsync="never",
                                 filters=filter_lines(filters))
        results.append((f"pushbridge QoS 1 + journal: {filters} filter{'s' if filters > 1 else ''}, memory",
                        row, ("memory", filters)))
    redis = RedisServer(workdir, bench_free_port())
    try:
        for replicas in (1, REPLICAS):
            for filters in (1, 3):
                name = f"redis{replicas}f{filters}"
                row = replica_flood(bench, broker, qos, n, workdir, name, replicas, filters, redis)
                results.append((f"share + Redis, {replicas} replica{'s' if replicas > 1 else ''}, "
                                f"{filters} filter{'s' if filters > 1 else ''}", row, ("redis", replicas, filters)))
    finally:
        redis.stop()
    return results


def stop_all(procs):
    """SIGTERM to every replica at once, then each waited for (40 s, then SIGKILL)."""
    for p in procs:
        p.send_signal(signal.SIGTERM)
    for p in procs:
        try:
            p.wait(timeout=40)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def bench_free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def replica_flood(bench, broker, qos, n, workdir, name, replicas, filters, redis):
    """`replicas` bridges in one share group on `redis` (flushed first); the flood's row with the
    replicas' CPU summed and Redis's own, the script calls and reads, and the round trip."""
    redis.command("FLUSHALL")
    options = dict(fsync="never", filters=filter_lines(filters), share="bench",
                   redis=(redis.url, f"{name}:"))
    check = bench.config(f"{name}-check", broker, qos, journal=os.path.join(workdir, f"{name}-check"), **options)
    if not bench.config_loads(check):
        return None
    procs = []
    try:
        for i in range(replicas):
            procs.append(bench.start_bridge(f"{name}-{i}", broker, qos,
                                            journal=os.path.join(workdir, f"{name}-{i}-journal"), **options))
        before = redis.info()
        row = bench.flood(broker, qos, n, bridge=procs, others={"redis": redis.pid})
        after = redis.info()
        samples = [metrics(p.http_port) for p in procs]
    finally:
        stop_all(procs)
    runs = len(row["rates"])
    row["redis_us"] = row["others_us"]["redis"]
    row["calls_per_msg"] = (after["calls"] - before["calls"]) / (n * runs)
    row["usec_per_call"] = (after["usec"] - before["usec"]) / max(after["calls"] - before["calls"], 1)
    row["calls_per_read"] = (after["calls"] - before["calls"]) / max(after["reads"] - before["reads"], 1)
    row["redis_mb"] = after["memory"] / 1e6
    trip = 'pushbridge_state_operation_duration_seconds_%s{op="filter_decide"}'
    total, count = (sum(m.get(trip % k, 0) for m in samples) for k in ("sum", "count"))
    row["round_trip_ms"] = total / count * 1000 if count else None
    # Each replica's share of the input (round robin) and its CPU per message it handled.
    received = [m.get("pushbridge_received_total", 0) for m in samples]
    row["shares"] = [x / max(sum(received), 1) for x in received]
    row["own_us"] = [us / share if share else None for us, share in zip(row["replica_us"], row["shares"])]
    row["replicas"] = replicas
    return row


def fmt(value, spec):
    return "-" if value is None else format(value, spec)


def print_table(shared, relay1):
    """The redis case's table: each row's ratio (and per replica), CPU per input message of the
    bridges (summed over the replicas), of redis-server and of everything (bridges, Redis, broker,
    load generator), the share of the machine's cores that is, and what Redis saw."""
    memory = {key[1]: row for _, row, key in shared if key[0] == "memory" and row}
    cores = os.cpu_count()
    print("\nshared state on Redis (QoS 1 floods, journal fsync never; the filters before drop-half, so every input"
          " message is one decision; ratios to relay QoS 1; CPU per input message, medians):")
    print(f"  {'case':<46} {'msg/s':>7} {'x relay':>7} {'/replica':>8} {'vs ref':>6} {'bridges':>8} {'redis':>6} "
          f"{'all':>6} {'cores':>5} {'calls/msg':>9} {'us/call':>7} {'calls/read':>10} {'trip ms':>8} {'redis MB':>8}")
    for label, row, key in shared:
        if row is None:
            print(f"  {label:<46} {'n/a':>7}")
            continue
        replicas = row.get("replicas", 1)
        ratio = row["rate"] / relay1["rate"] if relay1 else None
        each = ratio / replicas if ratio is not None else None
        reference = memory.get(key[-1])
        versus = each / (reference["rate"] / relay1["rate"]) if each is not None and reference else None
        everything = row["bridge_us"] + row.get("redis_us", 0) + row["broker_in_us"] + row["load_us"]
        print(f"  {label:<46} {row['rate']:>7,.0f} {fmt(ratio, '7.2f'):>7} {fmt(each, '8.2f'):>8} "
              f"{fmt(versus, '6.2f'):>6} {row['bridge_us']:>8.1f} {fmt(row.get('redis_us'), '6.1f'):>6} "
              f"{everything:>6.1f} {row['rate'] * everything / 1e6:>5.2f} {fmt(row.get('calls_per_msg'), '9.2f'):>9} "
              f"{fmt(row.get('usec_per_call'), '7.1f'):>7} {fmt(row.get('calls_per_read'), '10.1f'):>10} "
              f"{fmt(row.get('round_trip_ms'), '8.2f'):>8} {fmt(row.get('redis_mb'), '8.1f'):>8}")
    print(f"  (us per input message: bridges = the replicas' CPU summed, redis = redis-server's, all = bridges + redis +"
          f" broker + load generator; cores = msg/s x all: how many of the {cores} cores the flood kept busy."
          " /replica = x relay / replicas; vs ref = /replica over the x relay of the single bridge with the same"
          " filters in memory. calls/msg, us/call: the filter script's EVALSHA calls per input message and Redis's"
          " time in each (INFO commandstats); calls/read: calls per socket read of Redis's, about one pipeline;"
          " trip ms: the round trip a decision waited, mean over the calls, from the bridges' /metrics; redis MB:"
          " used_memory after the case's floods, flushed before it: mostly each message's decision, kept for a replay: as long as its longest window, at least 10 minutes, a day with a changed filter)")
    for label, row, key in shared:
        reference = memory.get(key[-1])
        if not row or row.get("replicas", 1) < 2 or not reference:
            continue
        own = [x for x in row["own_us"] if x]
        print(f"  {label}: the replicas took {' / '.join(f'{x * 100:.0f}' for x in row['shares'])} % of the input, at "
              f"{' / '.join(f'{x:.1f}' for x in own)} us per message each handled (the single bridge with the filters"
              f" in memory: {reference['bridge_us']:.1f}). Estimates, not measured here: bound by its own CPU alone"
              f" (a core per replica, Redis and the broker elsewhere), a replica would take"
              f" {reference['bridge_us'] / statistics.mean(own):.2f} x the single bridge's rate; Redis, one thread at"
              f" {row['redis_us']:.1f} us per message, caps the group at {1e6 / row['redis_us']:,.0f} msg/s ="
              f" {reference['bridge_us'] / row['redis_us']:.2f} x the single bridge's CPU-bound rate"
              f" ({reference['bridge_us'] / row['redis_us'] / row['replicas']:.2f} per replica)")
