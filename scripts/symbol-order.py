#!/usr/bin/env python3
"""Writes scripts/pushbridge.order: the release binary's functions in the order a start and a
flood first run them, for lld's --symbol-ordering-file (scripts/swift-release.sh).

Why: the functions a running bridge uses lie spread over ~17 MB of text, so ~8 MB of it was
resident; laid out together they fill far fewer pages (bench/README, "Issue 27, eleventh round":
peak RSS of the QoS 1 flood with the journal 24.7-25.4 -> 20.6-21.3 MB, same probe).

How: the release binary runs `pushbridge run` under valgrind's callgrind (apt valgrind) with
the benchmark's config, against a private mosquitto on loopback, through a QoS 1 flood with the
journal and a QoS 0 flood (bench/mqttbench), each bounded; every function callgrind saw run in
the binary is listed once, in the order of the profiles. Regenerate after large changes:

    make release && scripts/symbol-order.py && make release

A name the code no longer has is ignored by the linker; a new function missing from the list
keeps its place in the text (a little more resident text, nothing else).
"""
import os
import re
import subprocess
import sys
import tempfile
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import bench as B  # noqa: E402  (the benchmark's broker, configs and load generator)

OUT = os.path.join(ROOT, "scripts", "pushbridge.order")
ENTRY = re.compile(r"^(c?ob|c?fn)=\((\d+)\)(?: (.*))?$")


def functions(callgrind_out, binary):
    """The binary's function names in a callgrind file, in order of first appearance."""
    objects, names, current, seen, order = {}, {}, None, set(), []
    binary = os.path.realpath(binary)
    with open(callgrind_out, errors="replace") as f:
        for line in f:
            m = ENTRY.match(line.rstrip("\n"))
            if not m:
                continue
            kind, ident, name = m.groups()
            table = objects if kind.endswith("ob") else names
            if name:
                table[ident] = name
            if kind == "ob":
                current = objects.get(ident)
            elif kind == "fn" and current and os.path.realpath(current) == binary:
                fn = names.get(ident)
                if fn and not fn.startswith("0x") and fn not in seen:
                    seen.add(fn)
                    order.append(fn)
    return order


def profile(binary, tool, workdir, qos, journal, n):
    """One callgrind profile of `pushbridge run` through a flood of `n` messages at `qos`."""
    broker = B.Broker(workdir, tuned=True)
    bench = B.Bench(workdir, tool, binary)
    out = os.path.join(workdir, f"callgrind.{qos}.out")
    callgrind = ("valgrind", "--tool=callgrind", "--demangle=no", "--dump-instr=no", f"--callgrind-out-file={out}")
    try:
        proc = bench.start_bridge(f"order{qos}", broker, qos, journal=os.path.join(workdir, f"journal{qos}") if journal else None,
                                  wrapper=callgrind, ready_within=120)
        try:
            bench.gen(broker, "flood", "-q", qos, "-Q", qos, "-n", n, "-e", B.delivered(n, 16), "-T", 16,
                      "-R", 1, "-s", "display/#", "-w", 500, timeout=300)
            with urllib.request.urlopen(f"http://127.0.0.1:{bench.http_port}/metrics", timeout=10) as r:
                r.read()
        finally:
            bench.stop_bridge(proc, within=120)  # callgrind writes its profile as the bridge ends
    finally:
        broker.stop()
    return functions(out, binary)


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        subprocess.run([os.path.join(ROOT, "scripts", "swift-release.sh"), "--show-bin-path"],
                       capture_output=True, text=True, check=True).stdout.strip(), "pushbridge")
    tool = os.path.join(ROOT, ".build", "bench", "mqttbench")
    os.makedirs(os.path.dirname(tool), exist_ok=True)
    subprocess.run(["cc", "-O2", "-o", tool, os.path.join(ROOT, "bench", "mqttbench.c"), "-lmosquitto", "-lpthread"],
                   check=True)
    workdir = tempfile.mkdtemp(prefix="pushbridge-order-")
    order, seen = [], set()
    for qos, journal in ((1, True), (0, False)):
        for fn in profile(binary, tool, workdir, qos, journal, 5000):
            if fn not in seen:
                seen.add(fn)
                order.append(fn)
    if len(order) < 500:
        sys.exit(f"symbol-order: only {len(order)} functions seen; not writing {OUT}")
    with open(OUT, "w") as f:
        f.write("\n".join(order) + "\n")
    print(f"{OUT}: {len(order)} functions")


if __name__ == "__main__":
    main()
