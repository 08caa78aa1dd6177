"""The `scale` case of bench/bench.py: "cost that stays flat" (bench/README.md).

- Routes: the QoS 0 flood over 10 000 topics through 10, 100 and 1 000 routes whose filters mix
  `+` and `#` (`bench/r<i>/+`, `bench/r<i>/#`, the last `bench/+/+`; one route per topic, so each
  message is delivered once): every lookup walks a literal branch and the `+` branch. CPU per
  input message and peak RSS; target: 1 000 routes <= 2 x the CPU of 10.
- Filter memory: a `dedupe` keyed by a value unique to each message (`payload.n` and the
  publish time), with `max_keys` = K for K = 1 000, 100 000 and 1 000 000: a flood of K
  messages fills it, `Anonymous` of /proc/<pid>/smaps_rollup before and after gives the bytes
  per key (target <= 200), then a flood at that size (each message admits one key and evicts
  the oldest) gives the CPU per message.
- Restart: a bridge with `journal:` (`fsync: never`) remembers 10 000 keys and stops; the
  journal's filter memory is grown to 1 000 000 rows like them (`grow_journal`), then a new
  process on that journal: seconds from exec to `/readyz` 200 (target <= 2 s).
- Conditions: the QoS 0 flood through a route with one condition per topic (raised, then
  cleared, pass after pass) over 10 and over 10 000 topics.
"""
import os
import socket
import sqlite3
import subprocess
import time
import urllib.request

ROUTES = (10, 100, 1000)
TOPICS = 10_000
KEYS = (1_000, 100_000, 1_000_000)
CONDITIONS = (10, 10_000)


def flood_size():
    """Messages per measuring flood (BENCH_SCALE_N, default 100 000)."""
    return int(os.environ.get("BENCH_SCALE_N", "100000"))


def route_topic(r, routes):
    """Route r's filter: `+` and `#` in turn, one route per `bench/r<r>/t<t>` topic, and the last
    route `bench/+/+` (first match wins: it gets the last route's topics), so that every lookup
    walks the literal `r<r>` branch and the `+` branch."""
    return "bench/+/+" if r == routes - 1 else (f"bench/r{r}/+", f"bench/r{r}/#")[r % 2]


def dedupe_lines(max_keys):
    """A `dedupe` that remembers every message (its key is unique) and never suppresses."""
    return [
        "    - name: once",
        f"      dedupe: {{key: \"{{{{ payload.n }}}}/{{{{ payload.t }}}}\", window: 1h, max_keys: {max_keys}}}",
    ]


def anonymous_kb(pid):
    """`Anonymous` of /proc/<pid>/smaps_rollup, in kB (heap and other private memory)."""
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            if line.startswith("Anonymous:"):
                return int(line.split()[1])
    return 0


def fill(bench, broker, n):
    """A QoS 0 flood of n messages over 16 topics (the dedupe keys), as fast as it goes; the sink
    expects the half `drop-half` lets through (mqttbench sets "drop" when (j / 16) is odd)."""
    expected = sum(min(16, n - j) for j in range(0, n, 32))
    bench.gen(broker, "flood", "-q", 0, "-Q", 0, "-n", n, "-e", expected, "-T", 16, "-R", 1,
              "-s", "display/#", "-w", 500, timeout=240)


def cpu_seconds(pid):
    """utime + stime of a process so far, in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def ready_seconds(bench, name, broker, journal, max_keys, within=60, probe=False):
    """Starts `pushbridge run` on `journal`; returns the seconds from exec to /readyz 200, the
    CPU seconds the process had used by then (steadier on a busy machine), the process, and with
    `probe` the seconds from exec until one message published at ready came out on the display
    topic (decided with the restored memory: a decision waits for it), else None."""
    sub = None
    if probe:
        sub = subprocess.Popen(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(broker.port), "-t", "display/#",
                                "-C", "1"], stdout=subprocess.DEVNULL)
        time.sleep(0.5)  # subscribed before the bridge starts
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        http = bench.http_port = s.getsockname()[1]
    path = bench.config(name, broker, 0, journal=journal, http_port=http, fsync="never",
                        filters=dedupe_lines(max_keys))
    log = open(os.path.join(bench.workdir, f"{name}.log"), "w")
    started = time.monotonic()
    proc = subprocess.Popen([bench.pushbridge, "run", "-c", path], stdout=log, stderr=subprocess.STDOUT)
    log.close()
    while time.monotonic() - started < within and proc.poll() is None:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{http}/readyz", timeout=1) as r:
                if r.status == 200:
                    ready, cpu = time.monotonic() - started, cpu_seconds(proc.pid)
                    return ready, cpu, proc, sub and first_through(broker, sub, started)
        except OSError:
            time.sleep(0.01)
    proc.kill()
    raise RuntimeError(f"pushbridge ({name}) did not become ready within {within} s")


def first_through(broker, sub, started):
    """Publishes one message (a key the memory does not hold) and waits for `sub` to get its display."""
    n = -time.time_ns()  # a dedupe key no earlier run stored
    subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(broker.port), "-t", "bench/r0/t0", "-m",
                    f'{{"n":{n},"t":-1,"drop":false,"who":"Alice","room":"r0"}}'], check=True, timeout=30)
    try:
        sub.wait(timeout=60)
        return time.monotonic() - started
    except subprocess.TimeoutExpired:
        sub.kill()
        return None


def grow_journal(journal, keys):
    """Adds rows to the journal's filter memory until it holds `keys`: copies of a row the bridge
    wrote (its filter identity and hit time), each under a key of its own. A flood through the
    bridge with the journal fills it too, but at QoS 0 a busy machine loses part of a 1 000 000
    message flood and at QoS 1 it takes minutes; the rows are the same."""
    with sqlite3.connect(os.path.join(journal, "journal.sqlite")) as db:
        identity, value = db.execute("SELECT filter, value FROM filter_memory LIMIT 1").fetchone()
        have = db.execute("SELECT count(*) FROM filter_memory").fetchone()[0]
        db.executemany("INSERT OR IGNORE INTO filter_memory(filter, key, value) VALUES (?, ?, ?)",
                       ((identity, f"seed{i}/{i}", value) for i in range(keys - have)))
        return db.execute("SELECT count(*) FROM filter_memory").fetchone()[0]


def run(bench, broker, log):
    """Runs every part; returns (rows for the main table as (label, row, reference), facts)."""
    n = flood_size()
    rows, facts = [], {"routes": {}, "keys": {}, "conditions": {}}
    for count in ROUTES:
        log(f"  {count} routes with + and # filters, {TOPICS} topics")
        row = bench.bridge_flood(f"scale-r{count}", broker, 0, n, topics=TOPICS, routes=count,
                                 route_topic=lambda r, count=count: route_topic(r, count))
        facts["routes"][count] = row
        rows.append((f"pushbridge QoS 0 {count} wildcard routes", row))
    for keys in KEYS:
        log(f"  dedupe memory of {keys:,} keys")
        proc = bench.start_bridge(f"scale-k{keys}", broker, 0, filters=dedupe_lines(keys))
        try:
            fill(bench, broker, 1000)  # warm: buffers and caches allocated before the baseline
            before = anonymous_kb(proc.pid)
            fill(bench, broker, keys)
            after = anonymous_kb(proc.pid)
            row = bench.flood(broker, 0, n, bridge=proc)
            row["anon_mb"] = after / 1024
            row["bytes_per_key"] = (after - before) * 1024 / keys
        finally:
            bench.stop_bridge(proc)
        facts["keys"][keys] = row
        rows.append((f"pushbridge QoS 0 dedupe full at {keys:,} keys", row))
    journal = os.path.join(bench.workdir, "scale-journal")
    keys = KEYS[-1]
    log(f"  restart with {keys:,} keys of filter memory in the journal")
    _, _, proc, _ = ready_seconds(bench, "scale-fill", broker, journal, keys)
    try:
        fill(bench, broker, 10_000)
    finally:
        bench.stop_bridge(proc, within=120)
    stored = grow_journal(journal, keys)
    seconds, cpu, proc, first = ready_seconds(bench, "scale-restart", broker, journal, keys, probe=True)
    time.sleep(1)
    facts["restart"] = {"seconds": seconds, "cpu": cpu, "stored": stored, "first": first,
                        "anon_mb": anonymous_kb(proc.pid) / 1024}
    bench.stop_bridge(proc, within=120)
    for count in CONDITIONS:
        log(f"  {count:,} conditions raised and cleared in turn")
        row = bench.bridge_flood(f"scale-c{count}", broker, 0, n, topics=count, condition=True)
        facts["conditions"][count] = row
        rows.append((f"pushbridge QoS 0 {count:,} conditions", row))
    return rows, facts


def checks(facts):
    """The issue's targets on what ran: (name, value, op, bound)."""
    if not facts:
        return []
    r, k = facts["routes"], facts["keys"]
    out = [("1 000 wildcard routes: CPU/msg <= 2 x 10 routes' (ratio)",
            r[1000]["bridge_us"] / r[10]["bridge_us"], "<=", 2.0),
           ("filter memory: bytes per key at 1 000 000 keys (Anonymous) <= 200",
            k[KEYS[-1]]["bytes_per_key"], "<=", 200.0)]
    if "restart" in facts:
        out.append(("restart with 1 000 000 keys in the journal: s to /readyz <= 2",
                    facts["restart"]["seconds"], "<=", 2.0))
    return out


def print_table(facts):
    """The case's own table: CPU per message, memory, and each figure's ratio to the smallest size."""
    if not facts:
        return
    print("\ncost that stays flat (bridge CPU per input message and memory; x = ratio to the smallest size):")

    def line(label, row, base, extra=""):
        print(f"  {label:<44} {row['bridge_us']:7.2f} us/msg  x{row['bridge_us'] / base['bridge_us']:5.2f}"
              f"   peak RSS {row['rss']:6.1f} MB{extra}")
    for count, row in facts["routes"].items():
        line(f"{count:>9,} routes (+ and #)", row, facts["routes"][ROUTES[0]])
    for keys, row in facts["keys"].items():
        line(f"{keys:>9,} dedupe keys", row, facts["keys"][KEYS[0]],
             f"   Anonymous {row['anon_mb']:7.1f} MB   {row['bytes_per_key']:7.1f} B/key")
    for count, row in facts["conditions"].items():
        line(f"{count:>9,} conditions", row, facts["conditions"][CONDITIONS[0]])
    if "restart" in facts:
        s = facts["restart"]
        print(f"  restart with {s['stored']:,} filter-memory rows in the journal: {s['seconds']:.2f} s from exec to "
              f"/readyz 200, {s['cpu']:.2f} s of CPU by then; a message published at ready out at "
              f"{s['first']:.2f} s (Anonymous {s['anon_mb']:.1f} MB a second after ready)" if s["first"] else
              f"/readyz 200, {s['cpu']:.2f} s of CPU by then; the message published at ready never came out")
