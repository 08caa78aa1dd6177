"""The benchmark's settings, from the environment (bench/README.md, "Method"): runs per flood,
flood sizes, the cases to run, the fixed rate, and the time budget."""
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNS = int(os.environ.get("BENCH_RUNS", "3"))
N0 = int(os.environ.get("BENCH_N0", "200000"))   # QoS 0 flood size
N1 = int(os.environ.get("BENCH_N1", "100000"))   # QoS 1 flood size
# Run by bench/run.sh after this table: `outputs` (bench/outputs.py).
LATER_CASES = ("outputs",)
ALL_CASES = ("load", "relay", "q0", "q0dash", "q1", "journal", "redis", "big", "conditions", "attach", "people", "scale", "paths",
             "window", "fixed", "usersink", "nodelay")
# BENCH_CASES=q1,journal runs only those cases (ratios need "relay"; targets whose inputs
# were not run are left out). Default: all.
CASES = [c for c in os.environ.get("BENCH_CASES", ",".join(ALL_CASES)).split(",") if c]
for _case in CASES:
    if _case not in ALL_CASES + LATER_CASES:
        sys.exit(f"BENCH_CASES: unknown case '{_case}' (cases: {', '.join(ALL_CASES + LATER_CASES)})")
# BENCH_RATE: the fixed-rate cases at another rate (the latency targets are for 1 000 msg/s and are
# left out at any other).
FIXED_RATE = int(os.environ.get("BENCH_RATE", "1000"))
FIXED_SECONDS = 10
TICK = os.sysconf("SC_CLK_TCK")
DEADLINE = time.monotonic() + 570 + 300 * ("scale" in CASES) + 60 * ("paths" in CASES)  # 10 min + the scale cases
