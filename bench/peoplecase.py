"""The `people` case of bench.py: the QoS 0 flood through routes that each have a digest and
an audience, with two people whose presence is known, a filter that reads `people_home` on
every message, and 1 000 conditions superseded by a raised parent (depends_on) held the
whole time. What it shows: the cost of section "Tell the right person, once" on the path
of every message, and the memory of what it keeps."""
import json
import subprocess
import time
import urllib.request

SUPERSEDED = 1000


def route_lines():
    """Added to each flood route: a digest per topic whose `max` the flood never reaches in
    its window (every alert still arrives, so the sink can count them: the row measures the
    windows' bookkeeping, not holding), and the audience of the people at home."""
    return [
        "    audience: home",
        "    digest: {window: 10m, max: 1000000000, key: \"{{ topic }}\"}",
    ]


def extra_routes():
    """The gateway and the 1 000 devices behind it (one condition per device id)."""
    return [
        "  - name: gw",
        "    topic: bench/gw",
        "    alert: {title: \"Gateway offline\"}",
        "    condition: {key: \"gw\", active: 'payload.state == \"offline\"'}",
        "  - name: dev",
        "    topic: bench/dev",
        "    alert: {title: \"Device {{ payload.id }} offline\"}",
        "    condition:",
        "      key: \"{{ payload.id }}\"",
        "      active: 'payload.state == \"offline\"'",
        "      max_active: 5000",
        "      depends_on: gw",
    ]


def filters():
    """A filter every flood message goes through that reads the presence count."""
    return [
        "    - name: everyone-home",
        "      suppress: 'people_home > 2'",
    ]


def top_level():
    """Two people (their outputs reach only the gateway route: a webhook on a closed port,
    tried in the background) and their presence topics."""
    return [
        "people:",
        "  - name: alice",
        "    outputs: [alice-hook]",
        "    presence: {topic: bench/presence/alice, home: '\"home\" in (payload.inregions | default([]))',"
        " stale_after: 12h}",
        "  - name: bob",
        "    outputs: [bob-hook]",
        "    presence: {topic: bench/presence/bob, home: 'raw == \"home\"'}",
        "outputs:",
        "  - name: alice-hook",
        "    routes: [gw]",
        "    webhook: {url: \"http://127.0.0.1:9/alice\"}",
        "  - name: bob-hook",
        "    routes: [gw]",
        "    webhook: {url: \"http://127.0.0.1:9/bob\"}",
    ]


def superseded(http_port):
    """How many conditions /api/alerts lists as superseded."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{http_port}/api/alerts", timeout=5) as r:
            return sum(1 for a in json.load(r) if a.get("state") == "superseded")
    except OSError:
        return 0


def preload(broker_port, http_port, within=60):
    """Presence for both, the gateway offline, then 1 000 devices offline behind it; returns
    once /api/alerts lists them all as superseded (or raises after `within` seconds)."""
    def pub(topic, *lines):
        subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(broker_port), "-q", "1", "-t", topic, "-l"],
                       input="\n".join(lines) + "\n", text=True, check=True, timeout=30)
    pub("bench/presence/alice", json.dumps({"_type": "location", "lat": 52.5, "lon": 13.4, "tst": int(time.time()),
                                            "inregions": ["home"]}))
    pub("bench/presence/bob", "not_home")
    pub("bench/gw", json.dumps({"state": "offline"}))
    time.sleep(0.5)  # the parent is raised before its dependents arrive
    pub("bench/dev", *(json.dumps({"id": f"d{i:04d}", "state": "offline"}) for i in range(SUPERSEDED)))
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if superseded(http_port) >= SUPERSEDED:
            return
        time.sleep(0.2)
    raise RuntimeError(f"only {superseded(http_port)} of {SUPERSEDED} conditions superseded")
