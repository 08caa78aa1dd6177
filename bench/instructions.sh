#!/usr/bin/env bash
# bench/instructions.sh [QOS] [MESSAGES] [BINARY]: user-space instructions the release pushbridge
# executes per input message over a flood of MESSAGES through the bench config (16 topics,
# templates, half suppressed), counted by valgrind's callgrind: a figure that does not move
# with the machine's load (the same binary gives the same count to within 0.1 %), for A/B of
# one change where a timed flood on a shared machine swings by ±30 %. This machine has no
# hardware counters (`perf stat -e instructions` is not supported). Counting starts after the
# bridge is ready and stops when the sink has everything (`callgrind_control -i on/off`), so
# start-up is left out; under valgrind the bridge runs ~50x slower, so its read batches are
# larger than in a real flood and the network loop's share is smaller. The callgrind file is
# left in .build/bench/callgrind.out (`callgrind_annotate --inclusive=yes` on it for a profile).
set -euo pipefail
cd "$(dirname "$0")/.."
qos=${1:-0}; n=${2:-20000}
bin=${3:-"$(scripts/swift-release.sh --show-bin-path)/pushbridge"}
command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 1; }
mkdir -p .build/bench
cc -O2 -Wall -Wextra -o .build/bench/mqttbench bench/mqttbench.c -lmosquitto -lpthread
python3 - "$bin" "$qos" "$n" <<'PY'
import os, subprocess, sys, time, signal, urllib.request, glob
sys.path.insert(0, "bench")
import bench
binary, qos, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
work = os.path.abspath(".build/bench")
out = os.path.join(work, "callgrind.out")
for old in glob.glob(out + "*"):
    os.remove(old)
broker = bench.Broker(work, tuned=True)
try:
    b = bench.Bench(work, os.path.join(work, "mqttbench"), binary)
    http = bench.free_port()
    path = b.config("instructions", broker, qos, http_port=http)
    log = open(os.path.join(work, "instructions.log"), "w")
    proc = subprocess.Popen(["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}",
                             binary, "run", "-c", path], stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{http}/readyz", timeout=1) as r:
                if r.status == 200:
                    break
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            sys.exit(f"pushbridge under valgrind did not become ready; see {log.name}")
        time.sleep(0.2)
    quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    subprocess.run(["callgrind_control", "-i", "on", str(proc.pid)], **quiet)
    r = b.gen(broker, "flood", "-q", qos, "-Q", qos, "-n", n, "-e", bench.delivered(n, 16), "-T", 16,
              "-s", "display/#", "-w", 500, timeout=1200)
    subprocess.run(["callgrind_control", "-i", "off", str(proc.pid)], **quiet)
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=120)
finally:
    broker.stop()
total = next(int(line.split()[1]) for line in open(out) if line.startswith("totals:"))
print(f"{total / n:,.0f} instructions per input message (QoS {qos}, {n} messages, {int(r['received'])} displayed; {total:,} in all)")
PY
