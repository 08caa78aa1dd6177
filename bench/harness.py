"""The benchmark's harness: mqttbench runs, the bridge's config, a bridge started and stopped,
and the measured floods and fixed-rate runs (`Bench`)."""
import os
import resource
import signal
import statistics
import subprocess
import time
import urllib.request

import peoplecase
from loads import DashboardReader
from procstats import context_switches, cpu_seconds, cpu_split, delivered, free_port, log, peak_rss_mb, proc_io
from settings import DEADLINE, FIXED_RATE, FIXED_SECONDS, RUNS

class Bench:
    def __init__(self, workdir, tool, pushbridge):
        self.workdir = workdir
        self.tool = tool
        self.pushbridge = pushbridge

    def gen(self, broker, mode, *args, timeout=120):
        """Runs mqttbench once; returns its key=value line as a dict (numbers as floats)."""
        if time.monotonic() > DEADLINE:
            raise RuntimeError("time budget exhausted")
        cmd = [self.tool, mode, "-p", str(broker.port), *map(str, args)]
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"{' '.join(cmd)} took over {timeout} s (machine overloaded?)")
        if not out.stdout.strip():
            raise RuntimeError(f"{' '.join(cmd)} failed: {out.stderr.strip()}")
        result = {}
        for pair in out.stdout.split():
            key, value = pair.split("=", 1)
            try:
                result[key] = float(value)
            except ValueError:
                result[key] = value
        if result["received"] < result["expected"]:
            log(f"  warning: {mode} {args}: {int(result['received'])} of {int(result['expected'])} arrived")
        return result

    def config(self, name, broker, qos, routes=1, journal=None, http_port=None, condition=False, attach=False,
               people=False, fsync=None, filters=(), share=None, redis=None, route_topic=None, route_extra=(),
               extra=()):
        """The benchmark's config. `fsync`: journal.fsync; `filters`: `extension.filters` items put
        before `drop-half`; `share`: every route's shared-subscription group; `redis`: (url, prefix)
        of `state.redis` (rediscase.py); `route_topic(r)`: route r's filter (default `bench/r<r>/+`);
        `route_extra`: lines added to every route, `extra`: top-level lines (scalecase.py, pathscase.py)."""
        lines = [
            "broker:",
            "  host: 127.0.0.1",
            f"  port: {broker.port}",
            f"  client_id: bench-{name}",
            "  clean_start: true",
            # No session kept after the bridge stops: the broker would otherwise queue every later
            # QoS 1 flood for it (and hand a share group's messages to it in turn).
            "  session_expiry: 0s",
            "entitlements: [com.apple.developer.usernotifications.filtering]",
            "routes:",
        ]
        for r in range(routes):
            lines += [
                f"  - name: r{r}",
                f"    topic: {route_topic(r) if route_topic else f'bench/r{r}/+'}",
                f"    qos: {qos}",
                *([f"    share: {share}"] if share else []),
                "    input: json",
                "    push_type: alert",
                "    mutable_content: true",
                "    alert:",
                '      title: "Room {{ payload.room }}"',
                "      body: \"{{ payload.who | default('Someone') }} rang at {{ levels[2] }}\"",
            ]
            lines += list(route_extra)
            if people:
                lines += peoplecase.route_lines()
            if condition:
                # One condition per topic: a message without "drop" raises it (a display), the
                # next pass, with "drop", clears it (the withdraw message): one publish each.
                lines += [
                    "    condition:",
                    '      key: "{{ topic }}"',
                    "      active: 'payload.drop != true'",
                    "      repeat: {every: 1h}",
                ]
        if attach:
            # 20 alerts/s on cams/alert/<cam>, each with the camera's newest snapshot (AttachLoad).
            lines += [
                "  - name: cams",
                "    topic: cams/alert/+",
                "    qos: 0",
                "    alert: {title: \"Motion at {{ levels[2] }}\"}",
                "    attachments:",
                "      - identifier: snapshot",
                "        from_topic: \"cams/{{ levels[2] }}/snapshot\"",
                "attachments:",
                "  wait: 2s",
                f"  total_bytes: {ATTACH_STORE_BYTES}",
            ]
        if people:
            lines += peoplecase.extra_routes()
        lines += [
            "extension:",
            "  filters:",
            *filters,
            "    - name: drop-half",
            "      suppress: 'payload.drop == true'",
            *(peoplecase.filters() if people else []),
            "display:",
            '  topic: "display/{{ topic }}"',
            f"  qos: {qos}",
            "  format: json",
            "monitoring:",
            "  log_level: warning",
        ]
        if http_port:
            lines.append(f"  http: 127.0.0.1:{http_port}")
        if journal:
            lines += ["journal:", f"  path: {journal}"]
            if fsync:
                lines.append(f"  fsync: {fsync}")
        if redis:
            lines += ["state:", "  redis:", f"    url: \"{redis[0]}\"", f"    prefix: \"{redis[1]}\""]
        if people:
            lines += peoplecase.top_level()
        lines += list(extra)
        path = os.path.join(self.workdir, f"{name}.yml")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        return path

    def config_loads(self, path):
        return subprocess.run([self.pushbridge, "check", "-c", path], capture_output=True).returncode == 0

    def start_bridge(self, name, broker, qos, routes=1, journal=None, condition=False, wrapper=(), ready_within=20,
                     attach=False, people=False, **options):
        """`pushbridge run` with the benchmark's config, once /readyz answers; `wrapper` is a
        command to run it under (scripts/symbol-order.py: valgrind), `ready_within` seconds;
        `options`: the rest of `config`'s. The process's `http_port` is its monitoring port."""
        http = free_port()
        self.http_port = http
        path = self.config(name, broker, qos, routes, journal, http, condition, attach, people, **options)
        logf = open(os.path.join(self.workdir, f"{name}.log"), "w")
        proc = subprocess.Popen([*wrapper, self.pushbridge, "run", "-c", path], stdout=logf, stderr=subprocess.STDOUT)
        logf.close()  # the child has its own descriptor
        deadline = time.monotonic() + ready_within
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{http}/readyz", timeout=1) as r:
                    if r.status == 200:
                        proc.http_port = http
                        return proc
            except OSError:
                pass
            if proc.poll() is not None:
                break
            time.sleep(0.1)
        proc.kill()
        raise RuntimeError(f"pushbridge ({name}) did not become ready; see {logf.name}")

    @staticmethod
    def stop_bridge(proc, within=40):
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=within)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def flood(self, broker, qos, n, bridge=None, topics=16, routes=1, expected=None, sink=None, others=None,
              window=500, sample=None):
        """RUNS floods; medians of rate and of CPU per message for the bridge and the broker.
        `window`: the publisher's QoS 1 in-flight limit (mqttbench -w; 0: none); `sample`: called
        with the run's index while each flood runs, on a thread of its own (ingestcase.py).
        `bridge`: one process or a list of replicas (their CPU, I/O and context switches summed,
        each one's CPU per input message in `replica_us`, peak RSS the largest); `others`:
        {name: pid} of other processes whose CPU per input message goes to `others_us`."""
        rates, bridge_us, broker_us, received, io, broker_split = [], [], [], [], [], []
        replica_us, others_us, load_us, broker_in_us = [], [], [], []
        bridges = list(bridge) if isinstance(bridge, (list, tuple)) else [bridge] if bridge else []
        others = others or {}
        if expected is None:
            expected = delivered(n, topics) if bridge else n
        sink = sink or ("display/#" if bridge else "bench/#")

        def sum_io(procs):
            each = [proc_io(p.pid) for p in procs]
            return {k: sum(x[k] for x in each) for k in each[0]}

        for run in range(RUNS):
            i0 = sum_io(bridges) if bridges else None
            each0 = [cpu_split(p.pid) for p in bridges]
            c0 = sum(context_switches(p.pid) for p in bridges)
            o0 = {name: cpu_seconds(pid) for name, pid in others.items()}
            k0 = cpu_split(broker.proc.pid)
            g0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            sampler = sample and sample(run)
            try:
                r = self.gen(broker, "flood", "-q", qos, "-Q", qos, "-n", n, "-e", expected,
                             "-T", topics, "-R", routes, "-s", sink, "-w", window)
            finally:
                if sampler:
                    sampler()
            g1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            k1 = cpu_split(broker.proc.pid)
            # The load generator (publisher and sink): the one child that ended meanwhile.
            load_us.append((g1.ru_utime + g1.ru_stime - g0.ru_utime - g0.ru_stime) / n * 1e6)
            broker_in_us.append((sum(k1) - sum(k0)) / n * 1e6)
            others_us.append({name: (cpu_seconds(pid) - o0[name]) / n * 1e6 for name, pid in others.items()})
            if bridges:
                each1 = [cpu_split(p.pid) for p in bridges]
                s0 = tuple(sum(x[k] for x in each0) for k in (0, 1))
                s1 = tuple(sum(x[k] for x in each1) for k in (0, 1))
                i1 = sum_io(bridges)
                c1 = sum(context_switches(p.pid) for p in bridges)
                step = {k: (i1[k] - i0[k]) / n for k in i1}
                step["user_us"] = (s1[0] - s0[0]) / n * 1e6
                step["sys_us"] = (s1[1] - s0[1]) / n * 1e6
                step["switches"] = (c1 - c0) / n
                io.append(step)
                bridge_us.append((sum(s1) - sum(s0)) / n * 1e6)
                replica_us.append([(sum(b) - sum(a)) / n * 1e6 for a, b in zip(each0, each1)])
            rates.append(r["rate"])
            received.append(r["received"])
            relayed = n + r["received"] if bridge else n
            broker_split.append(((k1[0] - k0[0]) / relayed * 1e6, (k1[1] - k0[1]) / relayed * 1e6))
            broker_us.append((sum(k1) - sum(k0)) / relayed * 1e6)
            time.sleep(0.3)  # let the previous run's tail settle
        row = {"rate": statistics.median(rates), "broker_us": statistics.median(broker_us),
               "lost": expected - min(received), "rates": rates,
               "broker_split": tuple(statistics.median(x[k] for x in broker_split) for k in (0, 1)),
               "load_us": statistics.median(load_us), "broker_in_us": statistics.median(broker_in_us)}
        if others:
            row["others_us"] = {name: statistics.median(x[name] for x in others_us) for name in others}
        if bridges:
            row["bridge_us"] = statistics.median(bridge_us)
            row["replica_us"] = [statistics.median(x[i] for x in replica_us) for i in range(len(bridges))]
            row["rss"] = max(peak_rss_mb(p.pid) for p in bridges)
            row["io"] = {k: statistics.median(x[k] for x in io) for k in io[0]}
        return row

    def bridge_flood(self, name, broker, qos, n, topics=16, routes=1, journal=None, dashboard=False,
                     condition=False, window=500, sample=None, **options):
        proc = self.start_bridge(name, broker, qos, routes, journal, condition, **options)
        reader = DashboardReader(self.http_port) if dashboard else None
        try:
            row = self.flood(broker, qos, n, bridge=proc, topics=topics, routes=routes,
                             expected=n if condition else None, window=window,
                             sample=sample and (lambda run: sample(run, proc)))
            if reader:
                row["dashboard"] = reader.stop()
            return row
        finally:
            if reader:
                reader.stop()
            self.stop_bridge(proc)

    def fixed(self, broker, qos, bridge=None, quickack=True, bystander=False, sink=None):
        b0 = cpu_seconds(bridge.pid) if bridge else 0
        k0 = cpu_seconds(broker.proc.pid)
        n = FIXED_RATE * FIXED_SECONDS
        expected = delivered(n, 16) if bridge else n
        r = self.gen(broker, "fixed", "-q", qos, "-Q", qos, "-r", FIXED_RATE, "-d", FIXED_SECONDS,
                     "-e", expected, "-s", sink or ("display/#" if bridge else "bench/#"), "-i", 3,
                     *(["-A"] if quickack else []), *(["-S"] if bystander else []))
        k1 = cpu_seconds(broker.proc.pid)
        row = {"rate": r["rate"], "p50": r["p50_ms"], "p99": r["p99_ms"], "lost": expected - r["received"],
               "broker_us": (k1 - k0) / (n + (r["received"] if bridge else 0)) * 1e6}
        if bridge:
            row["bridge_us"] = (cpu_seconds(bridge.pid) - b0) / n * 1e6
            row["rss"] = peak_rss_mb(bridge.pid)
        return row


ATTACH_STORE_BYTES = 20_000_000  # the attach case's attachments.total_bytes
