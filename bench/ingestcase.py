"""The `window` case of bench/bench.py: ingest with an unbounded in-flight window (bench/README.md,
"QoS 1 with an unbounded window").

A broker with `max_inflight_messages 0` (no in-flight limit of its own: its CONNACK then carries no
Receive Maximum) and a publisher with no in-flight limit (mqttbench -w 0: every QoS 1 publish is
written at once, without waiting for PUBACKs), as a busy installation may run. The relay and
pushbridge, QoS 0 and QoS 1, are flooded through that one broker in the same run, so their ratios
compare like with like.

During each pushbridge QoS 1 flood the states of the bridge's two network threads are sampled
every 5 ms (`/proc/<pid>/task/<tid>/stat` and `wchan`): the intake thread either runs, waits in
`poll` for input (the broker's pace), waits on a futex (inside `on_message`, for a place: the
messages in flight wait for the PUBACKs of their displays) or sleeps in its read-coalescing
pause; the output thread runs or waits in `poll`. The two are the threads named `mqtt <client
id>` (the name is cut to 15 bytes), the output connection's started first (the lower id).
"""
import os
import statistics
import threading
import time

TARGET_Q1 = 0.60  # the bound for QoS 1 in this case
SAMPLE_SECONDS = 0.005


def thread_state(pid, tid):
    """'running', 'poll', 'futex', 'pause' or 'other' for one thread (None once it is gone)."""
    try:
        with open(f"/proc/{pid}/task/{tid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        with open(f"/proc/{pid}/task/{tid}/wchan") as f:
            wchan = f.read()
    except OSError:
        return None
    if state == "R":
        return "running"
    for key, name in (("poll", "poll"), ("futex", "futex"), ("nanosleep", "pause")):
        if key in wchan:
            return name
    return "other"


class ThreadSampler:
    """Samples the states of the bridge's two network threads on a thread of this process."""

    def __init__(self, pid):
        self.pid = pid
        tids = []
        for tid in sorted(os.listdir(f"/proc/{pid}/task"), key=int):
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                if f.read().startswith("mqtt "):
                    tids.append(tid)
        self.threads = dict(zip(("output", "intake"), tids))
        self.samples = {name: [] for name in self.threads}
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.done.is_set():
            for name, tid in self.threads.items():
                state = thread_state(self.pid, tid)
                if state:
                    self.samples[name].append(state)
            self.done.wait(SAMPLE_SECONDS)

    def stop(self):
        self.done.set()
        self.thread.join(5)

    def shares(self, name):
        """{state: share of the samples} of one thread."""
        seen = self.samples.get(name) or []
        return {state: seen.count(state) / len(seen) for state in set(seen)} if seen else {}


def run(bench, make_broker, n0, n1):
    """The four floods through one broker made by `make_broker`; returns their rows and samples."""
    broker = make_broker()
    result = {"samplers": []}

    def sample(run_index, proc):
        sampler = ThreadSampler(proc.pid)
        result["samplers"].append(sampler)
        return sampler.stop

    try:
        result["relay0"] = bench.flood(broker, 0, n0, window=0)
        result["relay1"] = bench.flood(broker, 1, n1, window=0)
        result["q0"] = bench.bridge_flood("window-q0", broker, 0, n0, window=0)
        result["q1"] = bench.bridge_flood("window-q1", broker, 1, n1, window=0, sample=sample)
    finally:
        broker.stop()
    return result


def rows(result):
    """The case's rows for the main table: (label, row, relay row)."""
    return [
        ("relay QoS 0, unbounded window", result["relay0"], result["relay0"]),
        ("relay QoS 1, unbounded window", result["relay1"], result["relay1"]),
        ("pushbridge QoS 0, unbounded window", result["q0"], result["relay0"]),
        ("pushbridge QoS 1, unbounded window", result["q1"], result["relay1"]),
    ]


def checks(result):
    """The case's target lines (name, value, op, bound); none when the case was not run."""
    if not result:
        return []
    relay0, relay1, q0, q1 = result["relay0"], result["relay1"], result["q0"], result["q1"]
    return [
        (f"unbounded window: QoS 1 flood >= {TARGET_Q1:.2f} x relay QoS 1", q1["rate"] / relay1["rate"], ">=",
         TARGET_Q1),
        ("unbounded window: bridge CPU/input msg <= half the broker's CPU/relayed msg (QoS 1, us)",
         q1["bridge_us"], "<=", relay1["broker_us"] / 2),
        ("unbounded window: bridge CPU/input msg <= half the broker's CPU/relayed msg (QoS 0, us)",
         q0["bridge_us"], "<=", relay0["broker_us"] / 2),
    ]


def print_notes(result):
    """The bridge threads' states through the QoS 1 floods (medians over the floods), below the targets."""
    samplers = result["samplers"]
    if not samplers:
        return
    for name, states in (("intake", ("running", "poll", "futex", "pause", "other")),
                         ("output", ("running", "poll", "futex", "other"))):
        shares = [s.shares(name) for s in samplers]
        text = ", ".join(f"{state} {statistics.median(x.get(state, 0) for x in shares):.0%}" for state in states)
        print(f"  (unbounded window, pushbridge QoS 1, {name} thread, share of 5 ms samples: {text})")
