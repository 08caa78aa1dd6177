#!/usr/bin/env bash
# bench/profile.sh [QOS] [MESSAGES]: samples the release pushbridge with `perf record -e cpu-clock`
# (this machine has no hardware counters, and callgrind dies in libdispatch's manager thread)
# while a flood of MESSAGES goes through the bench config (16 topics, templates, half
# suppressed). Prints the flat profile (self time) and the callers' view; the raw data is
# left in .build/bench/perf.data.
set -euo pipefail
cd "$(dirname "$0")/.."
qos=${1:-0}; n=${2:-200000}
mkdir -p .build/bench
cc -O2 -Wall -Wextra -o .build/bench/mqttbench bench/mqttbench.c -lmosquitto -lpthread
bin="$(scripts/swift-release.sh --show-bin-path)/pushbridge"
python3 - "$bin" "$qos" "$n" <<'PY'
import os, subprocess, sys, time, signal
sys.path.insert(0, "bench")
import bench
binary, qos, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
work = os.path.abspath(".build/bench")
broker = bench.Broker(work, tuned=True)
try:
    b = bench.Bench(work, os.path.join(work, "mqttbench"), binary)
    proc = b.start_bridge("profile", broker, qos)
    perf = subprocess.Popen(["perf", "record", "-q", "-e", "cpu-clock", "-g", "-p", str(proc.pid),
                             "-o", os.path.join(work, "perf.data")], stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    r = b.gen(broker, "flood", "-q", qos, "-Q", qos, "-n", n, "-e", bench.delivered(n, 16), "-s", "display/#")
    print(f"flood: {r['rate']:,.0f} msg/s", file=sys.stderr)
    perf.send_signal(signal.SIGINT); perf.wait(timeout=60)
    b.stop_bridge(proc)
finally:
    broker.stop()
PY
perf report -i .build/bench/perf.data --stdio --no-children --percent-limit 0.7 -g none 2>/dev/null | grep -v '^#' | grep -v '^$' | head -60
