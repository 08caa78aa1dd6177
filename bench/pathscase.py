"""The `paths` case of bench/bench.py: "the new paths" (bench/README.md), each beside the plain
bridge's QoS 0 flood (case `q0`) of the same run.

- Digest: the QoS 0 flood over topics that each get 24 messages (12 alerts once `drop-half` has
  suppressed half) through a route with `digest: {max: 2, window: 1h, key: "{{ topic }}"}`:
  every topic opens a window, 2 alerts of 12 are delivered one by one and 10 are held (their
  summaries follow when the bridge stops). A run ends when `/metrics` counts all 10 per window
  held (the sink has its 2 long before): its rate is messages / (first publish → that). Each run has topics of its own (mqttbench `-P`) and
  a route `digest<run>/#` of its own, so each opens new windows: 5 000 windows per run at 120 000 messages.
- Presence: the QoS 0 flood through a filter that reads `people_home` on every message, while two
  people's presence (an OwnTracks `location` with and without the `home` region, a Home
  Assistant `home` / `not_home` string) changes 1 000 times a second.
- Attachments and Redis: the rows of the `attach` and `redis` cases, reprinted here when they ran.
"""
import json
import os
import statistics
import subprocess
import threading
import time
import urllib.request

DIGEST_ALERTS = 12   # delivered alerts per window (24 messages per topic, half dropped)
DIGEST_MAX = 2
PRESENCE_RATE = 1000  # presence messages per second


def flood_size():
    """Messages per flood (BENCH_PATHS_N, default 120 000)."""
    return int(os.environ.get("BENCH_PATHS_N", "120000"))


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) / 1024 for line in f if line.startswith("VmHWM:"))


def digest(bench, broker, runs):
    """The digest row: median rate and CPU per input message over `runs` floods, one bridge."""
    n = flood_size()
    topics = n // (2 * DIGEST_ALERTS)
    proc = bench.start_bridge("paths-digest", broker, 0, routes=runs, route_topic=lambda r: f"digest{r}/#", route_extra=[
        f"    digest: {{window: 1h, max: {DIGEST_MAX}, key: \"{{{{ topic }}}}\"}}"])
    rates, us = [], []
    try:
        for run in range(runs):
            # The sink has its 2 alerts per window long before the bridge has held the other 10:
            # the run ends when /metrics counts every alert of the run held.
            c0, t0 = cpu_seconds(proc.pid), time.monotonic()
            bench.gen(broker, "flood", "-q", 0, "-Q", 0, "-n", n, "-e", topics * DIGEST_MAX, "-T", topics,
                      "-R", 1, "-P", f"digest{run}", "-s", "display/#", "-w", 500)
            goal, deadline = topics * (DIGEST_ALERTS - DIGEST_MAX) * (run + 1), time.monotonic() + 60
            while (held(bench.http_port) or 0) < goal and time.monotonic() < deadline:
                time.sleep(0.05)
            us.append((cpu_seconds(proc.pid) - c0) / n * 1e6)
            rates.append(n / (time.monotonic() - t0))
            time.sleep(0.3)
        row = {"rate": statistics.median(rates), "bridge_us": statistics.median(us), "rss": peak_rss_mb(proc.pid),
               "windows": topics * runs, "held": held(bench.http_port),
               "to_hold": topics * (DIGEST_ALERTS - DIGEST_MAX) * runs}
    finally:
        bench.stop_bridge(proc)
    return row


def held(port):
    """Alerts held for a digest so far (`pushbridge_digest_total{kind="held"}`, all routes), or None."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
            return int(sum(float(line.rsplit(" ", 1)[1]) for line in r.read().decode().splitlines()
                           if line.startswith("pushbridge_digest_total{") and 'kind="held"' in line))
    except OSError:
        return None


class PresenceStream:
    """Presence changes at `rate` per second, alternating, through two `mosquitto_pub -l`."""

    def __init__(self, port, rate=PRESENCE_RATE):
        self.rate, self.sent, self.done = rate, 0, threading.Event()
        pub = ["mosquitto_pub", "-h", "127.0.0.1", "-p", str(port), "-q", "0", "-l", "-t"]
        self.alice = subprocess.Popen(pub + ["people/alice"], stdin=subprocess.PIPE, text=True)
        self.bob = subprocess.Popen(pub + ["people/bob"], stdin=subprocess.PIPE, text=True)
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        next_at = time.monotonic()
        while not self.done.is_set():
            home = (self.sent // 2) % 2 == 0
            if self.sent % 2 == 0:
                self.alice.stdin.write(json.dumps({"_type": "location", "lat": 52.5, "lon": 13.4,
                                                   "tst": int(time.time()), "inregions": ["home"] if home else []}) + "\n")
                self.alice.stdin.flush()
            else:
                self.bob.stdin.write(("home" if home else "not_home") + "\n")
                self.bob.stdin.flush()
            self.sent += 1
            next_at += 1 / self.rate
            self.done.wait(max(0, next_at - time.monotonic()))

    def stop(self):
        self.done.set()
        self.thread.join(5)
        for p in (self.alice, self.bob):
            p.stdin.close()
            p.wait(10)
        return self.sent


def people_lines():
    """Two people, their presence topics, and outputs that reach nothing by themselves."""
    return [
        "people:",
        "  - name: alice",
        "    outputs: [alice-hook]",
        "    presence: {topic: people/alice, home: '\"home\" in (payload.inregions | default([]))'}",
        "  - name: bob",
        "    outputs: [bob-hook]",
        "    presence: {topic: people/bob, home: 'raw == \"home\"'}",
        "outputs:",
        "  - {name: alice-hook, routes: [], webhook: {url: \"http://127.0.0.1:9/alice\"}}",
        "  - {name: bob-hook, routes: [], webhook: {url: \"http://127.0.0.1:9/bob\"}}",
    ]


def presence(bench, broker):
    """The presence row: the usual flood (medians of bench's runs) beside the presence stream."""
    proc = bench.start_bridge("paths-presence", broker, 0, extra=people_lines(), filters=[
        "    - name: everyone-home", "      suppress: 'people_home > 2'"])
    stream = PresenceStream(broker.port)
    try:
        started = time.monotonic()
        row = bench.flood(broker, 0, flood_size(), bridge=proc)
        elapsed = time.monotonic() - started
    finally:
        row_sent = stream.stop()
        bench.stop_bridge(proc)
    row["presence_per_s"] = row_sent / max(elapsed, 1e-9)
    return row


def run(bench, broker, runs, log):
    """{"digest": row, "presence": row}."""
    log(f"  digest max {DIGEST_MAX} of {DIGEST_ALERTS} alerts per window")
    out = {"digest": digest(bench, broker, runs)}
    log(f"  presence changing {PRESENCE_RATE} times a second")
    out["presence"] = presence(bench, broker)
    return out


def print_table(paths, plain0, attach0, shared, plain1):
    """Each new path beside the plain bridge of the same run: input rate and CPU per input message,
    and their ratios (x plain: rate / plain rate, CPU / plain CPU)."""
    rows = []
    if paths:
        d, p = paths["digest"], paths["presence"]
        rows += [(f"digest: {DIGEST_ALERTS} alerts/window, max {DIGEST_MAX} ({d['windows']:,} windows, {d['held'] if d['held'] is not None else '?'} of {d['to_hold']} held)",
                  d, plain0),
                 (f"presence: {p['presence_per_s']:,.0f} changes/s, filter reads people_home", p, plain0)]
    if attach0:
        rows.append(("attachments: 20 alerts/s with 200 KB snapshots", attach0, plain0))
    memory = {key[1]: row for _, row, key in shared if key[0] == "memory" and row}
    for label, row, key in shared:
        if row and key[0] == "redis":
            rows.append((f"redis: {key[1]} replica(s), {key[2]} filter(s) (plain: QoS 1)", row, plain1))
            rows.append((f"  the same filters in memory, 1 bridge", memory.get(key[2]), plain1))
    if not rows:
        return
    print("\nthe new paths, beside the plain bridge of the same run (QoS 0 flood; Redis rows: QoS 1):")
    print(f"  {'path':<70} {'msg/s':>9} {'x plain':>8} {'us/msg':>7} {'x plain':>8} {'RSS MB':>7}")
    for label, row, plain in rows:
        if not row:
            continue
        rate_x = f"{row['rate'] / plain['rate']:8.2f}" if plain else f"{'-':>8}"
        cpu_x = f"{row['bridge_us'] / plain['bridge_us']:8.2f}" if plain and row.get("bridge_us") else f"{'-':>8}"
        us = f"{row['bridge_us']:7.2f}" if row.get("bridge_us") is not None else f"{'-':>7}"
        print(f"  {label:<70} {row['rate']:9,.0f} {rate_x} {us} {cpu_x} {row.get('rss', 0):7.1f}")
    for label, plain in (("plain bridge QoS 0 (q0)", plain0), ("plain bridge QoS 1 (q1)", plain1)):
        if plain:
            print(f"  {label:<70} {plain['rate']:9,.0f} {'1.00':>8} {plain['bridge_us']:7.2f} {'1.00':>8} "
                  f"{plain.get('rss', 0):7.1f}")
