"""The dashboard's Shared state panel (state.redis), checked in headless Chromium by
dashboard_test.py: a bridge that keeps its filters' memory in a private redis-server, the panel's
backend, health, round trip and operations, and NOT CONNECTED with the reason once Redis stops.
`h` is dashboard_test's module: its helpers (ports, processes, waits, the check list)."""
import os
import socket

from selenium.webdriver.common.by import By


STATE_CONFIG = """
broker: {{host: 127.0.0.1, port: {broker}, client_id: browser-state-{pid}}}
routes:
  - {{name: leaks, topic: "leak/+", share: bridges, alert: {{title: "Leak", body: "{{{{ topic }}}}"}}}}
extension:
  filters:
    - {{name: once, dedupe: {{key: "{{{{ topic }}}}", window: 10m}}}}
journal: {{path: "{journal}"}}
state:
  redis: {{url: "redis://127.0.0.1:{redis}/0", prefix: "browser:"}}
monitoring:
  http: "127.0.0.1:{http}"
  http_auth: {{token_file: "{token_file}"}}
  interval: 1s
"""


def state_checks(driver, broker, token_file, h):
    """A bridge that keeps its filters' memory in Redis (state.redis): the Shared state panel says
    where, that it answers and what it did; with Redis stopped it says NOT CONNECTED and why."""
    redis_port, http = h.free_port(), h.free_port()
    conf = os.path.join(h.TMP, "redis.conf")
    with open(conf, "w") as f:
        f.write(f"port {redis_port}\nbind 127.0.0.1\nsave \"\"\nappendonly no\ndir {h.TMP}\n")
    redis = h.start(["redis-server", conf], "redis.log")
    h.wait("redis-server", lambda: _port_open(redis_port))
    cfg = os.path.join(h.TMP, "bridge-state.yml")
    with open(cfg, "w") as f:
        f.write(STATE_CONFIG.format(broker=broker.port, pid=os.getpid(), journal=os.path.join(h.TMP, "journal-state"),
                                    redis=redis_port, http=http, token_file=token_file))
    bridge = h.start([h.BIN, "run", "-c", cfg], "bridge-state.log")
    url = f"http://127.0.0.1:{http}/"
    try:
        h.wait("state bridge /readyz", lambda: h._http_ok(http))

        def panel():
            driver.get(url)
            if driver.find_elements(By.CSS_SELECTOR, "form[action='/login']"):
                form = driver.find_element(By.CSS_SELECTOR, "form[action='/login']")
                form.find_element(By.NAME, "token").send_keys(h.TOKEN)
                form.submit()
            h.wait("the Shared state panel", lambda: driver.find_element(By.ID, "state-panel").is_displayed())
            for _ in range(3):
                broker.pub("leak/basement", '{"water_leak":true}')
            summary = lambda: driver.find_element(By.ID, "state-summary").text
            h.wait("redis connected", lambda: summary().startswith(f"redis at redis://127.0.0.1:{redis_port}/: connected"))

            def decided():
                rows = {r.get_attribute("data-op"): [c.text for c in r.find_elements(By.TAG_NAME, "td")]
                        for r in driver.find_elements(By.CSS_SELECTOR, "#state-ops tbody tr")}
                return rows.get("filter_decide", [None, "0"])[1] == "3"
            h.wait("three filter decisions counted", decided)
            h.stop(redis)
            h.wait("NOT CONNECTED with the reason", lambda: "NOT CONNECTED" in summary() and "unreachable" in summary())
            assert "warn" in driver.find_element(By.ID, "state-summary").get_attribute("class").split()
        h.check("the Shared state panel: Redis, its round trip and operations; NOT CONNECTED with the reason when it stops", panel)
    finally:
        h.stop(bridge)
        h.stop(redis)


def _port_open(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False
