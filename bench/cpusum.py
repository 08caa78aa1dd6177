#!/usr/bin/env python3
"""bench/cpusum.py [BINARY] [RUNS]: where the QoS 0 flood's two cores go.

Runs QoS 0 floods of 200 000 messages (the bench's payload, 16 topics, half suppressed)
through a tuned private broker, alternating the plain relay and pushbridge (started for its
flood only: a running bridge would take the relay's messages too), RUNS of each (3). For
each it prints the medians of the rate and of the CPU per *input* message of every process:
the broker, the load generator (publisher and sink, from the children's rusage) and the
bridge, their sum, the rate two fully busy cores would allow at that sum, and the measured
rate as a share of it. When a flood runs at ~100 % of its bound, only less CPU in some
process (per input message) can make it faster; the ratio of the two sums is then the
relay ratio the machine allows. With `perf` (Debian's linux-perf), one more flood of each,
not timed (perf slows the broker), counts the broker's system calls per input message
(`perf stat -e syscalls:sys_enter_*` on its pid).
"""
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
N = 200000


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


SYSCALLS = ("read", "write", "epoll_wait")


def flood(b, broker, bridge, calls=None):
    """(rate, broker µs, generator µs, bridge µs) per input message, for one flood; with
    `calls`, the broker's system calls per input message are counted into it (perf)."""
    expected = bench.delivered(N, 16) if bridge else N
    perf = None
    if calls is not None:
        events = ",".join(f"syscalls:sys_enter_{c}" for c in SYSCALLS)
        perf = subprocess.Popen(["perf", "stat", "-x", ",", "-e", events, "-p", str(broker.proc.pid)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        time.sleep(0.3)  # attached before the flood starts
    k0, g0 = bench.cpu_seconds(broker.proc.pid), children_cpu()
    p0 = bench.cpu_seconds(bridge.pid) if bridge else 0
    r = b.gen(broker, "flood", "-q", 0, "-Q", 0, "-n", N, "-e", expected, "-T", 16, "-R", 1,
              "-s", "display/#" if bridge else "bench/#", "-w", 500)
    k1, g1 = bench.cpu_seconds(broker.proc.pid), children_cpu()
    p1 = bench.cpu_seconds(bridge.pid) if bridge else 0
    if perf:
        perf.send_signal(2)
        for line in perf.communicate(timeout=10)[1].splitlines():
            fields = line.split(",")
            if len(fields) > 2 and fields[0].strip().isdigit():
                calls.setdefault(fields[2].rsplit("sys_enter_", 1)[-1], []).append(int(fields[0]) / N)
    per = lambda a, c: (c - a) / N * 1e6
    return r["rate"], per(k0, k1), per(g0, g1), per(p0, p1)


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build/release/pushbridge")
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    tool = os.path.join(ROOT, ".build/bench/mqttbench")
    if not os.path.exists(tool):
        sys.exit("build the load generator first: bench/run.sh, or "
                 "cc -O2 -o .build/bench/mqttbench bench/mqttbench.c -lmosquitto -lpthread")
    work = tempfile.mkdtemp(prefix="pushbridge-cpusum-")
    broker = bench.Broker(work, tuned=True)
    rows = {"relay": [], "pushbridge": []}
    calls = {"relay": {}, "pushbridge": {}}
    try:
        b = bench.Bench(work, tool, binary)
        for _ in range(runs):
            rows["relay"].append(flood(b, broker, None))
            time.sleep(0.3)
            proc = b.start_bridge("cpusum", broker, 0)
            try:
                rows["pushbridge"].append(flood(b, broker, proc))
            finally:
                b.stop_bridge(proc)
            time.sleep(0.3)
        if shutil.which("perf"):
            flood(b, broker, None, calls["relay"])
            proc = b.start_bridge("cpusum", broker, 0)
            try:
                flood(b, broker, proc, calls["pushbridge"])
            finally:
                b.stop_bridge(proc)
    finally:
        broker.stop()
    print(f"QoS 0 floods of {N}, {runs} of each, {os.cpu_count()} cores; CPU per input message, medians")
    med = {k: [statistics.median(x[i] for x in v) for i in range(4)] for k, v in rows.items()}
    for name, (rate, brk, gen, brg) in med.items():
        total = brk + gen + brg
        bound = os.cpu_count() * 1e6 / total
        print(f"  {name:10s} {rate:9,.0f} msg/s   broker {brk:5.2f}   generator {gen:5.2f}   bridge {brg:5.2f}"
              f"   sum {total:5.2f} us   cores allow {bound:9,.0f} msg/s (measured: {rate / bound:.2f} of it)")
    r, p = med["relay"], med["pushbridge"]
    print(f"  pushbridge / relay: measured {p[0] / r[0]:.3f}, ratio of the CPU sums {(r[1] + r[2]) / sum(p[1:]):.3f}")
    for name, v in rows.items():
        print(f"  {name} floods (msg/s): " + ", ".join(f"{x[0]:,.0f}" for x in v))
    for name, counted in calls.items():
        if counted:
            print(f"  {name}: the broker's system calls per input message: "
                  + ", ".join(f"{c} {statistics.median(counted[c]):.2f}" for c in SYSCALLS if c in counted))


if __name__ == "__main__":
    main()
