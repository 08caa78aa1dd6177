"""What the benchmark reads of a process (/proc: CPU, context switches, I/O, peak RSS), the
private broker it starts, and small helpers (a free port, the log, the expected count)."""
import os
import socket
import subprocess
import sys
import time

from settings import TICK

def log(text):
    print(text, file=sys.stderr, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_split(pid):
    """(utime, stime) of a process, in seconds (fields 14 and 15 of /proc/<pid>/stat)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) / TICK, int(fields[12]) / TICK


def cpu_seconds(pid):
    """utime + stime of a process, in seconds."""
    return sum(cpu_split(pid))


def context_switches(pid):
    """Voluntary + involuntary context switches of all the process's threads."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/status") as f:
                for line in f:
                    if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                        total += int(line.split()[1])
        except OSError:
            pass  # a thread that ended meanwhile
    return total


def delivered(n, topics):
    """Messages the filter lets through: mqttbench sets "drop" when (j / topics) is odd."""
    return sum(1 for j in range(n) if (j // topics) % 2 == 0)


def proc_io(pid):
    """{rchar, wchar, syscr, syscw} of a process (all its threads): bytes and read/write calls."""
    with open(f"/proc/{pid}/io") as f:
        return {k: int(v) for k, v in (line.split(": ") for line in f) if k in ("rchar", "wchar", "syscr", "syscw")}


def peak_rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


class Broker:
    """A private mosquitto; `tuned` raises the queue and in-flight limits for floods (`inflight`:
    its max_inflight_messages, 0 for none: ingestcase.py)."""

    def __init__(self, workdir, tuned, nodelay=False, inflight=500):
        self.port = free_port()
        conf = os.path.join(workdir, f"mosquitto-{self.port}.conf")
        lines = [f"listener {self.port} 127.0.0.1", "allow_anonymous true", "persistence false"]
        if tuned:
            lines += ["max_queued_messages 1000000", "max_queued_bytes 0", f"max_inflight_messages {inflight}"]
            # BENCH_MAX_TOPIC_ALIAS=0: no topic aliases for the bridge (A/B of Broker/TopicAliases).
            if os.environ.get("BENCH_MAX_TOPIC_ALIAS"):
                lines.append(f"max_topic_alias {int(os.environ['BENCH_MAX_TOPIC_ALIAS'])}")
        if nodelay:
            lines.append("set_tcp_nodelay true")  # what compose/mosquitto.conf ships
        with open(conf, "w") as f:
            f.write("\n".join(lines) + "\n")
        self.log = open(os.path.join(workdir, f"mosquitto-{self.port}.log"), "w")
        self.proc = subprocess.Popen(["mosquitto", "-c", conf], stdout=self.log, stderr=subprocess.STDOUT)
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("mosquitto did not start")

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)

