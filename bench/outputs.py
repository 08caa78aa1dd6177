#!/usr/bin/env python3
"""The outputs benchmark (bench/README.md, "Outputs"): `bench/run.sh outputs` or
`python3 bench/outputs.py MQTTBENCH PUSHBRIDGE`.

Reuses bench.py's broker, bridge and mqttbench harness. Rows, in one run on this machine:
  * 1 000 alerts/s (2 000 msg/s in, half suppressed) for FIXED_SECONDS to a loopback webhook
    (a threaded HTTP server in this process) and to a real ntfy (integration/ntfy/install.sh):
    delivered/s, the added latency p50/p99 (hand-off to the service's 2xx, from the bridge's
    own stats), and the bridge CPU per delivery beyond the same run with no output;
  * the display topic's QoS 1 flood rate with a dead output (a closed port) and with no
    output, each as a ratio to the plain broker relay measured in the same run.
"""
import json, os, statistics, subprocess, sys, threading, time, urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench as B  # noqa: E402

RATE_IN = int(os.environ.get("BENCH_OUTPUT_RATE", "2000"))   # input msg/s; half are alerts
SECONDS = int(os.environ.get("BENCH_OUTPUT_SECONDS", "5"))
FLOOD_N = int(os.environ.get("BENCH_OUTPUT_FLOOD", "20000"))  # QoS 1 flood (10 000 alerts: the memory bound)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Sink:
    """A loopback webhook: counts the requests, answers 200."""

    def __init__(self):
        self.count = 0
        self.first = self.last = None
        lock = threading.Lock()
        sink = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                now = time.monotonic()
                with lock:
                    sink.count += 1
                    sink.first = sink.first or now
                    sink.last = now
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

        ThreadingHTTPServer.daemon_threads = True
        self.port = B.free_port()
        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()


class Ntfy:
    def __init__(self, workdir):
        binary = subprocess.run([os.path.join(ROOT, "integration/ntfy/install.sh")], capture_output=True, text=True,
                                check=True, timeout=300).stdout.split()[-1]
        self.port = B.free_port()
        conf = os.path.join(workdir, "ntfy.yml")
        with open(conf, "w") as f:
            f.write(f'listen-http: "127.0.0.1:{self.port}"\nbase-url: "http://127.0.0.1:{self.port}"\n'
                    f'cache-file: "{workdir}/ntfy-cache.db"\nvisitor-request-limit-exempt-hosts: "127.0.0.1"\n'
                    # ntfy's own advice for many messages: write the cache in batches.
                    'cache-batch-size: 100\ncache-batch-timeout: "100ms"\n')
        self.log = open(os.path.join(workdir, "ntfy.log"), "w")
        self.proc = subprocess.Popen([binary, "serve", "--config", conf], stdout=self.log, stderr=subprocess.STDOUT)
        for _ in range(100):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/v1/health", timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        self.version = next((l.split("ntfy ")[1].split(",")[0] for l in open(self.log.name) if "Listening on" in l), "?")

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)


class OutputBench(B.Bench):
    outputs = ""

    def config(self, *args, **kwargs):
        path = super().config(*args, **kwargs)
        if self.outputs:
            with open(path, "a") as f:
                f.write("outputs:\n" + self.outputs)
        return path

    def stats(self):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.http_port}/api/stats", timeout=5) as r:
            return json.load(r)

    def fixed_run(self, name, broker, outputs, wait_for=None):
        """RATE_IN msg/s for SECONDS through a bridge with `outputs`; the bridge's CPU and stats."""
        self.outputs = outputs
        proc = self.start_bridge(name, broker, 1)
        try:
            c0 = B.cpu_seconds(proc.pid)
            t0 = time.monotonic()
            n = RATE_IN * SECONDS
            self.gen(broker, "fixed", "-q", 1, "-Q", 1, "-r", RATE_IN, "-d", SECONDS, "-e", B.delivered(n, 16),
                     "-s", "display/#", "-i", 3, "-A", timeout=SECONDS + 60)
            if wait_for:
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline and not wait_for(self.stats()):
                    time.sleep(0.1)
            cpu = B.cpu_seconds(proc.pid) - c0
            self.elapsed = time.monotonic() - t0
            return cpu, self.stats()
        finally:
            self.stop_bridge(proc)


def main():
    tool, pushbridge = sys.argv[1], sys.argv[2]
    workdir = subprocess.run(["mktemp", "-d"], capture_output=True, text=True).stdout.strip()
    b = OutputBench(workdir, tool, pushbridge)
    broker = B.Broker(workdir, tuned=True)
    alerts = B.delivered(RATE_IN * SECONDS, 16)
    rows = []
    try:
        base_cpu, _ = b.fixed_run("none", broker, "")
        sink = Sink()
        done = lambda s: s.get("outputs", {}).get("o", {}).get("delivered", 0) >= alerts  # noqa: E731
        hook_cpu, hook = b.fixed_run("webhook", broker, f'  - {{name: o, webhook: {{url: "http://127.0.0.1:{sink.port}/h"}}}}\n',
                                     wait_for=done)
        span = (sink.last - sink.first) if sink.count > 1 else float("nan")
        rows.append(("webhook (loopback)", sink.count, sink.count / span, hook["outputs"]["o"], (hook_cpu - base_cpu) / max(sink.count, 1)))
        sink.stop()
        ntfy = Ntfy(workdir)
        try:
            n_cpu, n = b.fixed_run("ntfy", broker, f'  - {{name: o, ntfy: {{url: "http://127.0.0.1:{ntfy.port}/bench"}}}}\n',
                                   wait_for=done)
            o = n["outputs"]["o"]
            rows.append((f"ntfy {ntfy.version} (loopback)", o["delivered"], o["delivered"] / b.elapsed, o,
                         (n_cpu - base_cpu) / max(o["delivered"], 1)))
        finally:
            ntfy.stop()

        print(f"\noutputs at {RATE_IN // 2:,} alerts/s for {SECONDS} s ({alerts:,} alerts; QoS 1 in and out):")
        print(f"  {'output':<28} {'delivered':>9} {'deliv/s':>8} {'p50 ms':>7} {'p99 ms':>7} {'retried':>7} {'CPU µs/delivery':>16}")
        for label, count, rate, o, cpu in rows:
            print(f"  {label:<28} {count:>9,} {B.fmt(rate, ',.0f'):>8} {o['latency_ms']['p50']:>7.1f} {o['latency_ms']['p99']:>7.1f} "
                  f"{o['retried']:>7} {cpu * 1e6:>16.1f}")
        print("  (latency: hand-off to the service's 2xx, the bridge's own figure; CPU: bridge CPU beyond the same run "
              "with no output, per delivery; ntfy deliv/s: all delivered / time from the first publish to the last 2xx)")

        relay = b.flood(broker, 1, FLOOD_N)
        b.outputs = ""
        plain = b.bridge_flood("q1-none", broker, 1, FLOOD_N)
        b.outputs = f'  - {{name: dead, timeout: 2s, webhook: {{url: "http://127.0.0.1:{B.free_port()}/h"}}}}\n'
        dead = b.bridge_flood("q1-dead", broker, 1, FLOOD_N)
        print(f"\ndisplay topic, QoS 1 flood of {FLOOD_N:,} (median of {B.RUNS}):")
        print(f"  relay                       {relay['rate']:>9,.0f} msg/s  1.00")
        print(f"  pushbridge, no output       {plain['rate']:>9,.0f} msg/s  {plain['rate'] / relay['rate']:.3f}  "
              f"bridge {plain['bridge_us']:.1f} µs/msg")
        print(f"  pushbridge, a dead output   {dead['rate']:>9,.0f} msg/s  {dead['rate'] / relay['rate']:.3f}  "
              f"bridge {dead['bridge_us']:.1f} µs/msg  lost {dead['lost']}")
        print(f"  dead / none: {dead['rate'] / plain['rate']:.3f} (target: within 0.02 of 1)")
    finally:
        broker.stop()


if __name__ == "__main__":
    main()
