#!/usr/bin/env python3
"""The outputs benchmark (bench/README.md, "Outputs"): `make bench` runs it after the main table
(case `outputs`); alone: `bench/run.sh outputs` or `python3 bench/outputs.py MQTTBENCH PUSHBRIDGE`.

Reuses bench.py's broker, bridge and mqttbench harness; the services are loopback:
`bench/httpsink.c` (libmicrohttpd, answers 204, counts; with a delay, a slow service) for the
webhook and as the Web Push service, and a real ntfy (integration/ntfy/install.sh). Rows, in
one run on this machine (QoS 1 in and out, half of the input suppressed):
  * 1 000 alerts/s for SECONDS: webhook, ntfy, Web Push (one subscription) and the webhook beside
    a second output that answers after 2 s: delivered/s, the added latency p50/p99 (hand-off to
    the service's 2xx, the bridge's own figure), the bridge CPU per delivery beyond the same run
    with no output; Web Push's encryption and signing apart = its CPU beyond the webhook's;
  * 5 000 alerts/s for SECONDS (sustained): webhook and ntfy, the same figures;
  * the display topic's QoS 1 flood with no output, a dead output and a slow output (2 s), each
    as a ratio to the plain broker relay measured in the same run.
Every row prints its target; nothing fails the run.
"""
import json, os, subprocess, sys, time, urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench as B  # noqa: E402
from outputsvc import HTTPSink, Ntfy, subscribe_webpush  # noqa: E402

SECONDS = int(os.environ.get("BENCH_OUTPUT_SECONDS", "5"))
RATE = int(os.environ.get("BENCH_OUTPUT_RATE", "1000"))  # alerts/s of the fixed-rate rows
CAPACITY = int(os.environ.get("BENCH_OUTPUT_CAPACITY", "8000"))  # alerts of the capacity rows' flood (in memory: < 10 000)
RATES = [RATE, None]  # None: the capacity rows
FLOOD_N = int(os.environ.get("BENCH_OUTPUT_FLOOD", "20000"))  # QoS 1 flood (10 000 alerts: the memory bound)
SLOW_MS = 2000
TARGETS = {"cpu_us": 40.0, "p99_ms": 10.0, "sustained": 5000.0, "webpush_us": 150.0, "slowdown": 0.02}


class OutputBench(B.Bench):
    outputs = ""
    extra = ""

    def config(self, *args, **kwargs):
        path = super().config(*args, **kwargs)
        with open(path, "a") as f:
            f.write(self.extra)
            if self.outputs:
                f.write("outputs:\n" + self.outputs)
        return path

    def stats(self):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.http_port}/api/stats", timeout=5) as r:
            return json.load(r)

    def fixed_run(self, name, broker, alerts_per_s, outputs, wait_for=None, before=None, service=None):
        """2 × `alerts_per_s` msg/s for SECONDS (`None`: a flood of 2 × CAPACITY messages) through a
        bridge with `outputs`; its CPU and stats (`service_cpu`: the CPU seconds of `service`'s
        process over the same time)."""
        self.outputs = outputs
        proc = self.start_bridge(name, broker, 1)
        try:
            if before:
                before(self)
            c0 = B.cpu_seconds(proc.pid)
            s0 = B.cpu_seconds(service.proc.pid) if service else 0
            t0 = time.monotonic()
            if alerts_per_s:
                n = 2 * alerts_per_s * SECONDS
                self.gen(broker, "fixed", "-q", 1, "-Q", 1, "-r", 2 * alerts_per_s, "-d", SECONDS, "-e", B.delivered(n, 16),
                         "-s", "display/#", "-i", 3, "-A", timeout=SECONDS + 60)
            else:
                n = 2 * CAPACITY
                self.gen(broker, "flood", "-q", 1, "-Q", 1, "-n", n, "-e", B.delivered(n, 16), "-T", 16, "-R", 1,
                         "-s", "display/#", "-w", 500)
            if wait_for:
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline and not wait_for(self.stats()):
                    time.sleep(0.05)
            self.elapsed = time.monotonic() - t0
            self.service_cpu = B.cpu_seconds(service.proc.pid) - s0 if service else float("nan")
            return B.cpu_seconds(proc.pid) - c0, self.stats()
        finally:
            self.stop_bridge(proc)
            self.extra = ""


def delivered_all(name, n):
    return lambda s: s.get("outputs", {}).get(name, {}).get("delivered", 0) >= n


def row(label, rate, count, span, o, cpu, base_cpu, service_cpu=float("nan")):
    """A printed row: delivered, deliveries/s, p50/p99 ms, retried, CPU µs per delivery of the
    bridge (beyond the run without an output) and of the service."""
    return {"label": label, "rate": rate, "count": count, "per_s": count / span if span and span > 0 else float("nan"),
            "p50": o["latency_ms"]["p50"], "p99": o["latency_ms"]["p99"], "retried": o["retried"],
            "cpu_us": (cpu - base_cpu) / max(count, 1) * 1e6, "service_us": service_cpu / max(count, 1) * 1e6}


def shown(rate):
    """A row's rate as printed: alerts/s, or `flood` for the capacity rows."""
    return f"{rate:,}" if rate else "flood"


def hook(name, port, extra=""):
    return f'  - {{name: {name}, webhook: {{url: "http://127.0.0.1:{port}/h"}}{extra}}}\n'


def run_rate(b, broker, rate, ntfy, rows):
    """The rows at `rate` alerts/s (`None`: the capacity rows, a flood of CAPACITY alerts)."""
    alerts = B.delivered(2 * rate * SECONDS if rate else 2 * CAPACITY, 16)
    base_cpu, _ = b.fixed_run(f"none-{rate}", broker, rate, "")
    sink = HTTPSink(b.workdir)
    try:
        cpu, s = b.fixed_run(f"webhook-{rate}", broker, rate, hook("o", sink.port), wait_for=delivered_all("o", alerts),
                             service=sink)
        c = sink.count()
        rows.append(row("webhook", rate, c["count"], c["last"] - c["first"], s["outputs"]["o"], cpu, base_cpu, b.service_cpu))
    finally:
        sink.stop()
    if ntfy:
        cpu, s = b.fixed_run(f"ntfy-{rate}", broker, rate, f'  - {{name: o, ntfy: {{url: "http://127.0.0.1:{ntfy.port}/bench"}}}}\n',
                             wait_for=delivered_all("o", alerts), service=ntfy)
        o = s["outputs"]["o"]
        rows.append(row(f"ntfy {ntfy.version}", rate, o["delivered"], b.elapsed, o, cpu, base_cpu, b.service_cpu))
    sink = HTTPSink(b.workdir)
    try:
        token = os.path.join(b.workdir, "subscribe-token")
        with open(token, "w") as f:
            f.write("bench-subscribe-token-0123456789\n")
        b.extra = ""
        vapid = os.path.join(b.workdir, "vapid.pem")
        cpu, s = b.fixed_run(f"webpush-{rate}", broker, rate,
                             f'  - {{name: o, webpush: {{vapid_key_file: "{vapid}", subject: "mailto:bench@example.com", '
                             f'subscribe_token_file: "{token}"}}}}\n', wait_for=delivered_all("o", alerts),
                             before=lambda bb: subscribe_webpush(bb.http_port, token, f"http://127.0.0.1:{sink.port}/push/1"),
                             service=sink)
        c = sink.count()
        rows.append(row("Web Push (1 subscription)", rate, c["count"], c["last"] - c["first"], s["outputs"]["o"], cpu, base_cpu,
                        b.service_cpu))
    finally:
        sink.stop()
    if rate != RATES[0]:
        return
    fast, slow = HTTPSink(b.workdir), HTTPSink(b.workdir, delay_ms=SLOW_MS)
    try:
        cpu, s = b.fixed_run(f"slow-{rate}", broker, rate, hook("o", fast.port) + hook("slow", slow.port, ", timeout: 5s"),
                             wait_for=delivered_all("o", alerts))
        c = fast.count()
        rows.append(row(f"webhook beside one answering after {SLOW_MS / 1000:g} s", rate, c["count"], c["last"] - c["first"],
                        s["outputs"]["o"], cpu, base_cpu))
    finally:
        fast.stop()
        slow.stop()


def floods(b, broker):
    relay = b.flood(broker, 1, FLOOD_N)
    b.outputs = ""
    plain = b.bridge_flood("q1-none", broker, 1, FLOOD_N)
    b.outputs = hook("dead", B.free_port(), ", timeout: 2s")
    dead = b.bridge_flood("q1-dead", broker, 1, FLOOD_N)
    slow = HTTPSink(b.workdir, delay_ms=SLOW_MS)
    try:
        b.outputs = hook("slow", slow.port, ", timeout: 5s")
        slowed = b.bridge_flood("q1-slow", broker, 1, FLOOD_N)
    finally:
        slow.stop()
        b.outputs = ""
    return relay, plain, dead, slowed


def report(rows, relay, plain, dead, slowed):
    print(f"\noutputs, QoS 1 in and out, half the input suppressed: {RATE:,} alerts/s for {SECONDS} s, then a flood of "
          f"{CAPACITY:,} alerts (the capacity: deliveries/s while a backlog waits):")
    print(f"  {'output':<44} {'alerts/s':>8} {'delivered':>9} {'deliv/s':>8} {'p50 ms':>7} {'p99 ms':>7} {'retried':>7} "
          f"{'CPU µs/delivery':>16} {'service µs':>10}")
    for r in rows:
        print(f"  {r['label']:<44} {shown(r['rate']):>8} {r['count']:>9,} {B.fmt(r['per_s'], ',.0f'):>8} {r['p50']:>7.2f} "
              f"{r['p99']:>7.2f} {r['retried']:>7} {r['cpu_us']:>16.1f} {B.fmt(r['service_us'], '.1f'):>10}")
    print("  (latency: hand-off to the service's 2xx, the bridge's own figure; CPU: bridge CPU beyond the same run with no "
          "output, per delivery; service µs: the service's own CPU per delivery (the C sink, ntfy); deliv/s: at the sink, "
          "first to last answer (ntfy: all delivered / run time))")
    print(f"\ndisplay topic, QoS 1 flood of {FLOOD_N:,} (median of {B.RUNS}):")
    print(f"  relay                              {relay['rate']:>9,.0f} msg/s  1.00")
    for label, f in (("no output", plain), ("a dead output", dead), (f"an output answering after {SLOW_MS / 1000:g} s", slowed)):
        print(f"  pushbridge, {label:<23} {f['rate']:>9,.0f} msg/s  {f['rate'] / relay['rate']:.3f}  "
              f"bridge {f['bridge_us']:.1f} µs/msg  lost {f['lost']}")
    checks = []
    first = [r for r in rows if r["rate"] == RATES[0]]
    for r in rows:
        simple = r["label"].startswith(("webhook", "ntfy")) and "beside" not in r["label"]
        if simple and r["rate"] == RATE:
            checks.append((f"{r['label']} at {r['rate']:,}/s: p99 (ms)", r["p99"], "<=", TARGETS["p99_ms"]))
        if simple and r["rate"] is None:
            checks.append((f"{r['label']}, flood: deliveries/s sustained", r["per_s"], ">=", TARGETS["sustained"]))
            checks.append((f"{r['label']}, flood: CPU per delivery (µs)", r["cpu_us"], "<=", TARGETS["cpu_us"]))
        if r["label"].startswith("Web Push") and r["rate"] is None:
            checks.append(("Web Push, flood: CPU per delivery, all in (µs)", r["cpu_us"], "<=", TARGETS["webpush_us"]))
    webhook = next((r for r in first if r["label"] == "webhook"), None)
    beside = next((r for r in first if "beside" in r["label"]), None)
    if beside and webhook:
        checks.append((f"webhook beside a {SLOW_MS / 1000:g} s service: p99 (ms)", beside["p99"], "<=", TARGETS["p99_ms"]))
    for label, f in (("dead", dead), ("slow", slowed)):
        checks.append((f"display flood with a {label} output: |1 - rate / no output|", abs(1 - f["rate"] / plain["rate"]),
                       "<=", TARGETS["slowdown"]))
    print("\noutputs targets:")
    for text, value, op, bound in checks:
        ok = value <= bound if op == "<=" else value >= bound
        print(f"  {'met' if ok else 'MISS':<6}{text}: {B.fmt(value, ',.2f')} (bound {bound:,.2f})")
    for rate in RATES:
        push = next((r for r in rows if r["rate"] == rate and r["label"].startswith("Web Push")), None)
        hook_row = next((r for r in rows if r["rate"] == rate and r["label"] == "webhook"), None)
        if push and hook_row:
            print(f"  (Web Push at {rate or 'flood'}, its encryption and VAPID apart from the sending: "
                  f"{push['cpu_us'] - hook_row['cpu_us']:.1f} µs per delivery = its CPU beyond the webhook's to the same sink)")


def main():
    tool, pushbridge = sys.argv[1], sys.argv[2]
    workdir = subprocess.run(["mktemp", "-d"], capture_output=True, text=True).stdout.strip()
    b = OutputBench(workdir, tool, pushbridge)
    broker = B.Broker(workdir, tuned=True)
    rows = []
    try:
        # The floods first: the relay's ceiling before any fixed-rate run has loaded the broker.
        B.log("outputs: display floods with no, a dead and a slow output")
        floods_measured = floods(b, broker)
        try:
            ntfy = Ntfy(workdir)
        except (OSError, subprocess.SubprocessError) as e:
            B.log(f"outputs: ntfy cannot run here ({e}); its rows are left out")
            ntfy = None
        try:
            for rate in RATES:
                B.log(f"outputs at {shown(rate)} alerts/s")
                run_rate(b, broker, rate, ntfy, rows)
        finally:
            if ntfy:
                ntfy.stop()
        report(rows, *floods_measured)
    finally:
        broker.stop()


if __name__ == "__main__":
    main()
