#!/usr/bin/env python3
"""The dashboard in a real browser: headless Chromium driven by selenium (chromium-driver).

usage: dashboard_test.py PATH_TO_PUSHBRIDGE [ARTIFACT_DIR]

Starts a private mosquitto and `pushbridge run` on free loopback ports, opens `/` and
checks what the page renders: topic counts, a suppressed message in the decision list with
the filter that decided, the topic filter narrowing the list (typed and by clicking a
topic), keyboard sorting, the connection state flipping when the broker stops, and no
JavaScript error in the browser log. Saves screenshots under load to ARTIFACT_DIR
(default .build/test-artifacts). Prints "browser: N passed, M failed"; exit 1 on failure.
Run by Tests/PushBridgeTests/MonitoringIntegration/DashboardBrowserTests.swift.
"""
import json, math, os, random, re, shutil, signal, socket, subprocess, sys, tempfile, threading, time, traceback

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.common.exceptions import StaleElementReferenceException

import state_panel

BIN = os.path.realpath(sys.argv[1]) if len(sys.argv) > 1 else sys.exit(__doc__)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
ARTIFACTS = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, ".build", "test-artifacts")
TMP = tempfile.mkdtemp(prefix="pushbridge-browser-")
TOKEN = "browser-test-token-0123456789"  # monitoring.http_auth's token: the page signs in with it
PROCS = []


def free_port():
    # Below the ephemeral range and clear of the Swift tests' 20000-31999 (as integration/deploy
    # does).
    for _ in range(500):
        p = random.randint(12000, 19999)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", p))
                return p
            except OSError:
                pass
    raise RuntimeError("no free port")


def wait(what, cond, timeout=30.0, every=0.1):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = cond()
            if last:
                return last
        except Exception as e:  # the page may be between renders
            last = e
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what} (last: {last!r})")


def start(args, log):
    p = subprocess.Popen(args, stdout=open(os.path.join(TMP, log), "w"), stderr=subprocess.STDOUT)
    PROCS.append(p)
    return p


def stop(p):
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


class Broker:
    def __init__(self):
        self.port = free_port()
        conf = os.path.join(TMP, "mosquitto.conf")
        with open(conf, "w") as f:
            f.write(f"listener {self.port} 127.0.0.1\nallow_anonymous true\nmax_queued_messages 100000\n")
            if os.getuid() == 0:
                f.write("user root\n")
        self.conf = conf
        self.proc = None

    def start(self):
        self.proc = start(["mosquitto", "-c", self.conf], "mosquitto.log")
        wait("mosquitto", lambda: self._answers())

    def _answers(self):
        with socket.socket() as s:
            return s.connect_ex(("127.0.0.1", self.port)) == 0

    def stop(self):
        stop(self.proc)

    def pub_file(self, topic, path):
        subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(self.port), "-V", "mqttv5", "-t", topic,
                        "-f", path], check=True, timeout=10)

    def pub(self, topic, payload, *extra):
        subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(self.port), "-V", "mqttv5", "-t", topic,
                        "-m", payload, *extra], check=True, timeout=10)


CONFIG = """
broker: {{host: 127.0.0.1, port: {broker}, client_id: browser-test-{pid}, reconnect: {{min: 100ms, max: 500ms}}}}
entitlements: [com.apple.developer.usernotifications.filtering]
routes:
  - {{name: doorbell, topic: "home/+/doorbell", alert: {{title: "Doorbell", body: "{{{{ payload.who }}}} is at the door"}}}}
  - {{name: telemetry, topic: "sensors/#", push_type: background}}
  - {{name: passthrough, topic: "apns/#", input: apns}}
  - {{name: alarms, topic: "alarm/#", alert: {{title: "Alarm", body: "{{{{ payload.zone }}}}"}}}}
  - name: doorcam                   # a camera's snapshot goes with its ring
    topic: "cam/+/event"
    alert: {{title: "Doorbell", body: "ring"}}
    attachments: [{{identifier: snapshot, from_topic: "cam/{{{{ levels[1] }}}}/snapshot"}}]
  - name: leak
    topic: "zigbee2mqtt/+"
    alert: {{title: "Water leak", body: "{{{{ topic }}}}"}}
    condition: {{key: "{{{{ topic }}}}", active: "payload.water_leak == true", repeat: {{every: 1h}}}}
  # One root cause, one notification: a device offline while its Zigbee bridge is offline is
  # superseded (raised silently), and the alerts panel shows it muted.
  - name: zigbee-bridge
    topic: "z2m/bridge/state"
    alert: {{title: "Zigbee2MQTT is offline"}}
    condition: {{key: "{{{{ topic }}}}", active: 'payload.state == "offline"'}}
  - name: zigbee-device
    topic: "z2m/+/availability"
    alert: {{title: "Offline: {{{{ levels[1] }}}}"}}
    condition: {{key: "{{{{ topic }}}}", active: 'payload.state == "offline"', depends_on: zigbee-bridge}}
conditions: {{ack_topic: pushbridge/ack}}
attachments: {{wait: 1s}}
extension:
  filters:
    - {{name: drop-test-rings, suppress: "payload.test == true"}}
    - {{name: five-a-second, rate_limit: {{key: "{{{{ topic }}}}", max: 5, window: 1s}}, routes: [alarms]}}
monitoring:
  http: "127.0.0.1:{http}"
  http_auth: {{token_file: "{token_file}"}}   # the page signs in with it first
  interval: 1s
outputs:
  # A webhook nobody answers (a free port): its deliveries wait and are retried.
  - {{name: dead-hook, routes: [doorbell], timeout: 1s, webhook: {{url: "http://127.0.0.1:{dead}/hook"}}}}
# The People panel: presence from OwnTracks and from Home Assistant's statestream; carol has none.
people:
  - name: alice
    outputs: [dead-hook]
    presence: {{topic: owntracks/alice/phone, home: '"home" in (payload.inregions | default([]))'}}
  - name: bob
    outputs: [dead-hook]
    presence: {{topic: homeassistant/person/bob/state, home: 'raw == "home"'}}
  - {{name: carol, outputs: [dead-hook]}}
"""

results = []


def check(name, fn):
    try:
        fn()
        results.append((name, None))
        print(f"ok   {name}", flush=True)
    except Exception as e:
        results.append((name, e))
        print(f"FAIL {name}: {e}", flush=True)
        traceback.print_exc()


def main():
    os.makedirs(ARTIFACTS, exist_ok=True)
    broker = Broker()
    broker.start()
    http = free_port()
    cfg = os.path.join(TMP, "bridge.yml")
    token_file = os.path.join(TMP, "http_token")
    with open(token_file, "w") as f:
        f.write(TOKEN + "\n")
    with open(cfg, "w") as f:
        f.write(CONFIG.format(broker=broker.port, http=http, pid=os.getpid(), dead=free_port(), token_file=token_file))
    bridge = start([BIN, "run", "-c", cfg], "bridge.log")
    url = f"http://127.0.0.1:{http}/"
    wait("bridge /readyz", lambda: _http_ok(http))

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,1000",
              "--force-device-scale-factor=1", "--disable-extensions", "--no-first-run", "--disable-background-networking",
              f"--user-data-dir={TMP}/chrome"):
        options.add_argument(a)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(30)
    try:
        run_checks(driver, broker, url, bridge)
        state_panel.state_checks(driver, broker, token_file, sys.modules[__name__])
    finally:
        driver.quit()
        stop(bridge)
        broker.stop()
        for p in PROCS:
            stop(p)
        shutil.rmtree(TMP, ignore_errors=True)
    failed = [n for n, e in results if e]
    print(f"browser: {len(results) - len(failed)} passed, {len(failed)} failed")
    sys.exit(1 if failed else 0)


def _http_ok(port):
    import urllib.request
    try:
        return urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2).status == 200
    except Exception:
        return False


def row_counts(driver, topic):
    rows = [r for r in driver.find_elements(By.CSS_SELECTOR, "#topics tbody tr") if r.get_attribute("data-topic") == topic]
    if not rows:
        return None
    r = rows[0]
    return {k: int(r.find_element(By.CSS_SELECTOR, "td." + k).text.replace(",", ""))
            for k in ("received", "delivered", "suppressed", "rejected")}


def decision_rows(driver):
    return [(r.get_attribute("data-topic"), r.get_attribute("data-outcome"), r.get_attribute("data-decided-by"), r.text)
            for r in driver.find_elements(By.CSS_SELECTOR, "#decisions tbody tr")]


def run_checks(driver, broker, url, bridge):
    driver.get(url)

    def sign_in():
        # Without the session cookie the page is the sign-in form and nothing of the dashboard.
        form = driver.find_element(By.CSS_SELECTOR, "form[action='/login']")
        assert not driver.find_elements(By.ID, "conn"), "the dashboard shows before signing in"
        assert TOKEN not in driver.page_source
        form.find_element(By.NAME, "token").send_keys(TOKEN)
        form.submit()
        wait("the dashboard after signing in", lambda: driver.find_elements(By.ID, "conn"))
        assert TOKEN not in driver.page_source
    check("the page asks for the token first, then shows the dashboard", sign_in)

    def connected():
        wait("connection state 'connected'",
             lambda: driver.find_element(By.ID, "conn").get_attribute("data-state") == "connected")
        assert "connected" in driver.find_element(By.ID, "conn-text").text
    check("page loads and shows the broker connected", connected)

    def no_external_urls():
        html = driver.page_source
        for marker in ("http://", "https://", "//cdn", "src=\"http"):
            # The only absolute URLs allowed are none at all (the SVG/XML namespaces are not used).
            assert marker not in html.replace(url, ""), f"the page references {marker!r}"
        resources = driver.execute_script(
            "return performance.getEntriesByType('resource').map(e => e.name)")
        foreign = [r for r in resources if not r.startswith(url)]
        assert not foreign, f"resources from elsewhere: {foreign}"
    check("the page loads nothing from elsewhere", no_external_urls)

    for who in ("Alice", "Carol", "Dave"):
        broker.pub("home/front/doorbell", json.dumps({"who": who}))
    broker.pub("home/front/doorbell", json.dumps({"who": "Bob", "test": True}))
    broker.pub("home/garden/doorbell", json.dumps({"who": "Eve"}))
    broker.pub("sensors/kitchen/telemetry", '{"t":21.5,"note":"kitchen-secret"}')
    broker.pub("sensors/kitchen/telemetry", '{"t":21.7,"note":"kitchen-secret"}')
    broker.pub("apns/phone", "not an apns body")

    def topic_counts():
        wait("topic table counts", lambda: row_counts(driver, "home/front/doorbell") ==
             {"received": 4, "delivered": 3, "suppressed": 1, "rejected": 0})
        # Published after the front door's: they may reach the page one update later.
        wait("garden row", lambda: row_counts(driver, "home/garden/doorbell") ==
             {"received": 1, "delivered": 1, "suppressed": 0, "rejected": 0})
        wait("telemetry row", lambda: (row_counts(driver, "sensors/kitchen/telemetry") or {}).get("received") == 2)
        wait("apns row", lambda: row_counts(driver, "apns/phone") ==
             {"received": 1, "delivered": 0, "suppressed": 0, "rejected": 1})
        wait("totals", lambda: driver.find_element(By.ID, "t-received").text == "8")
        # Each read is retried: the tables re-render on every update, and an element found
        # just before a render is stale just after it.
        wait("rejected total", lambda: driver.find_element(By.ID, "t-rejected").text == "1")
        wait("routes table", lambda: driver.find_element(By.CSS_SELECTOR, '#routes tr[data-route="doorbell"]'))
        wait("filter count", lambda: driver.execute_script(
            "const r = document.querySelector('#filters tr[data-filter=\"drop-test-rings\"]');"
            "return r ? r.querySelectorAll('td')[1].innerText.trim() : null;") == "1")
    check("the topic table, totals, routes and filters show the right counts", topic_counts)

    def outputs_panel():
        # Four doorbell alerts delivered, none accepted by the dead webhook: pending and retried.
        # Read in one script call: the panel re-renders every update, and cells found one by one
        # can go stale between the finding and the reading.
        def cells():
            return driver.execute_script(
                "const r = document.querySelector('#outputs tr[data-output=\"dead-hook\"]');"
                "return r ? Array.from(r.querySelectorAll('td'), td => td.innerText.trim()) : null;")
        c = wait("outputs row", lambda: (lambda c: c if c and len(c) > 5 and c[5] == "4" and int(c[4]) >= 1 else None)(cells()))
        assert c[1] == "webhook" and c[2] == "0" and c[3] == "0", c
        assert driver.find_element(By.ID, "outputs-panel").is_displayed()
    check("the outputs panel shows a dead webhook's pending and retried deliveries", outputs_panel)

    def suppressed_listed():
        rows = wait("a suppressed decision", lambda: [r for r in decision_rows(driver) if r[1] == "suppressed"])
        topic, _, by, text = rows[0]
        assert topic == "home/front/doorbell" and by == "drop-test-rings", rows[0]
        assert "drop-test-rings" in text
        rejected = [r for r in decision_rows(driver) if r[1] == "rejected"]
        assert rejected and "InvalidPayload" in rejected[0][3], rejected
        assert len(decision_rows(driver)) == 8, decision_rows(driver)
        # No payload or notification text leaves the bridge at log_level info.
        page = driver.find_element(By.ID, "decisions").text
        for secret in ("Alice", "Bob", "kitchen-secret", "is at the door"):
            assert secret not in page, f"{secret!r} shown in the decision list"
    check("a suppressed message is listed with the filter that decided", suppressed_listed)

    def narrowing():
        box = driver.find_element(By.ID, "topic-filter")
        box.clear()
        box.send_keys("sensors/+/telemetry")
        wait("narrowed to sensors", lambda: {r[0] for r in decision_rows(driver)} == {"sensors/kitchen/telemetry"})
        assert len(decision_rows(driver)) == 2
        driver.find_element(By.ID, "clear-filter").click()
        wait("all again", lambda: len(decision_rows(driver)) == 8)
        # Clicking a topic in the table narrows the list to it.
        link = driver.find_element(By.CSS_SELECTOR, '#topics button.topic-link[data-topic="apns/phone"]')
        # The page is taller than the window (alerts and outputs panels): bring the link out
        # from under the sticky header before clicking, as a person scrolls to it.
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", link)
        link.click()
        wait("narrowed by click", lambda: [r[0] for r in decision_rows(driver)] == ["apns/phone"])
        assert driver.find_element(By.ID, "topic-filter").get_attribute("value") == "apns/phone"
        driver.find_element(By.ID, "clear-filter").click()
        wait("all again", lambda: len(decision_rows(driver)) == 8)
    check("the topic filter narrows the decision list (typed and by clicking a topic)", narrowing)

    def keyboard_sort():
        button = driver.find_element(By.CSS_SELECTOR, '#topics th button[data-key="topic"]')
        button.send_keys(Keys.ENTER)  # a real <button>: Enter activates it
        wait("sorted by topic", lambda: button.find_element(By.XPATH, "..").get_attribute("aria-sort") == "ascending")
        topics = [r.get_attribute("data-topic") for r in driver.find_elements(By.CSS_SELECTOR, "#topics tbody tr")]
        assert topics == sorted(topics), topics
        button.send_keys(Keys.SPACE)
        wait("sorted descending", lambda: button.find_element(By.XPATH, "..").get_attribute("aria-sort") == "descending")
        received = driver.find_element(By.CSS_SELECTOR, '#topics th button[data-key="received"]')
        received.send_keys(Keys.ENTER)
        wait("sorted by received", lambda: received.find_element(By.XPATH, "..").get_attribute("aria-sort") == "descending")
    check("sortable headers are buttons that work from the keyboard", keyboard_sort)

    def attachment_thumbnails():
        # A 1×1 PNG as the front camera's snapshot; the back camera sent none.
        png = os.path.join(TMP, "snapshot.png")
        with open(png, "wb") as f:
            f.write(bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de0000000c4944415408d763"
                                  "f8cfc0000003010100c9fe92ef0000000049454e44ae426082"))
        broker.pub_file("cam/front/snapshot", png)
        broker.pub("cam/front/event", "{}")
        broker.pub("cam/back/event", "{}")

        def rows():
            return driver.execute_script(
                "return Array.from(document.querySelectorAll('#decisions tbody tr'))"
                ".filter(r => r.dataset.topic.startsWith('cam/')).map(r => ({topic: r.dataset.topic,"
                " imgs: Array.from(r.querySelectorAll('.attachments img'), i => ({src: i.getAttribute('src'),"
                "   loading: i.getAttribute('loading'), alt: i.alt, maxHeight: getComputedStyle(i).maxHeight})),"
                " notes: Array.from(r.querySelectorAll('.attachments .not-attached'), s => s.textContent)}));")
        shown = wait("both camera decisions", lambda: (lambda r: r if len(r) == 2 else None)(rows()))
        front = next(r for r in shown if r["topic"] == "cam/front/event")
        back = next(r for r in shown if r["topic"] == "cam/back/event")
        # The thumbnail loads from this server: the capability URL's path, relative as the page's requests are.
        assert len(front["imgs"]) == 1 and not front["notes"], front
        img = front["imgs"][0]
        assert re.fullmatch(r"attachments/[0-9a-f]{32}/snapshot\.png", img["src"]), img
        assert img["loading"] == "lazy" and img["alt"] == "snapshot" and img["maxHeight"] == "48px", img
        # The picture itself loads (the store serves it to the signed-in page as to anyone with the URL).
        wait("the thumbnail loaded", lambda: driver.execute_script(
            "const i = document.querySelector('#decisions tbody tr[data-topic=\"cam/front/event\"] .attachments img');"
            " return i && i.complete && i.naturalWidth === 1;"))
        assert not back["imgs"] and back["notes"] == ["snapshot: not attached (FetchFailed)"], back
    check("a decision shows its attached picture as a small thumbnail, and why one was not attached", attachment_thumbnails)

    def under_load():
        done = threading.Event()
        loader = threading.Thread(target=lambda: (load(broker, seconds=40, stop=done)), daemon=True)
        loader.start()
        try:
            wait("rates shown", lambda: any(c.text not in ("–", "0.0") for c in
                                             driver.find_elements(By.CSS_SELECTOR, "#topics td.rate")))
            # Pictures, not synchronisation: let the chart fill for a while, then shoot while the load runs.
            time.sleep(28)
            driver.execute_script("document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0)")
            driver.set_window_size(1280, 1900)
            time.sleep(1.5)
            driver.save_screenshot(os.path.join(ARTIFACTS, "dashboard.png"))
            driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                                   {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
            time.sleep(1.2)
            driver.save_screenshot(os.path.join(ARTIFACTS, "dashboard-dark.png"))
            driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
            driver.set_window_size(390, 1600)
            time.sleep(1.2)
            driver.save_screenshot(os.path.join(ARTIFACTS, "dashboard-phone.png"))
            driver.set_window_size(1280, 1000)
        finally:
            done.set()
            loader.join(30)
        assert os.path.getsize(os.path.join(ARTIFACTS, "dashboard.png")) > 10000
    check("under load: rates appear; screenshots saved", under_load)

    def active_alerts():
        # A Zigbee2MQTT leak sensor's report (zigbee2mqtt.io, SJCGQ11LM: water_leak, battery, linkquality).
        broker.pub("zigbee2mqtt/cellar", '{"battery":100,"water_leak":true,"linkquality":120}')

        def row():
            rows = driver.find_elements(By.CSS_SELECTOR, "#alerts tbody tr")
            return rows[0] if len(rows) == 1 and "zigbee2mqtt/cellar" in rows[0].text else None
        r = wait("the raised alert in the active-alerts panel", row)
        assert r.get_attribute("data-state") == "raised" and "leak" in r.text, r.text
        assert not driver.find_element(By.ID, "alerts-empty").is_displayed()
        broker.pub("pushbridge/ack", '{"route":"leak","key":"zigbee2mqtt/cellar","by":"browser"}')
        wait("acknowledged by browser", lambda: "acknowledged by browser" in (row().text if row() else ""))
        broker.pub("zigbee2mqtt/cellar", '{"battery":100,"water_leak":false,"linkquality":118}')
        wait("the alert gone once it cleared", lambda: not driver.find_elements(By.CSS_SELECTOR, "#alerts tbody tr"))
        assert driver.find_element(By.ID, "alerts-empty").is_displayed()
    check("active alerts: raised, then acknowledged, then gone", active_alerts)

    def superseded_alert():
        # Zigbee2MQTT's bridge/state and a device's availability (zigbee2mqtt.io "MQTT topics and
        # messages": {"state":"online"|"offline"}): the device offline while the bridge is offline.
        broker.pub("z2m/bridge/state", '{"state":"offline"}')
        broker.pub("z2m/hall_lamp/availability", '{"state":"offline"}')

        # The list is drawn anew with each change: everything is read in one look, taken again
        # until it holds (a row read between two draws is gone).
        def rows():
            found = {r.get_attribute("data-state"): r for r in driver.find_elements(By.CSS_SELECTOR, "#alerts tbody tr")}
            if set(found) != {"raised", "superseded"}:
                return None
            device = found["superseded"]
            return (device.text, device.find_element(By.CSS_SELECTOR, "td.state").text,
                    device.value_of_css_property("color"), found["raised"].value_of_css_property("color"))
        text, state, device_colour, raised_colour = wait("the bridge's alert raised and the device's superseded", rows)
        assert "z2m/hall_lamp/availability" in text and "zigbee-device" in text, text
        assert state == "superseded by zigbee-bridge", state
        # Muted: the colour of the page's muted text (the theme's --muted), not that of the raised one.
        muted = driver.find_element(By.ID, "alert-count").value_of_css_property("color")
        assert device_colour == muted, (device_colour, muted)
        assert raised_colour != muted
        # The bridge back: the device, still offline, is announced and becomes an ordinary raised alert.
        broker.pub("z2m/bridge/state", '{"state":"online"}')

        def announced():
            rs = driver.find_elements(By.CSS_SELECTOR, "#alerts tbody tr")
            if len(rs) != 1 or rs[0].get_attribute("data-state") != "raised":
                return None
            return (rs[0].text, rs[0].find_element(By.CSS_SELECTOR, "td.state").text)
        text, state = wait("the device's alert raised once the bridge cleared", announced)
        assert "z2m/hall_lamp/availability" in text and state == "raised", (text, state)
        broker.pub("z2m/hall_lamp/availability", '{"state":"online"}')
        wait("no alert left", lambda: not driver.find_elements(By.CSS_SELECTOR, "#alerts tbody tr"))
    check("a superseded alert is listed muted, superseded by its parent, and raised once the parent clears", superseded_alert)

    def people_panel():
        def presence():
            rows = driver.find_elements(By.CSS_SELECTOR, "#people tbody tr")
            return {r.get_attribute("data-person"): r for r in rows}
        assert driver.find_element(By.ID, "people-panel").is_displayed()
        wait("three people, each unknown", lambda: len(presence()) == 3)
        # OwnTracks' location message (owntracks.org booklet, JSON format) inside the region "home";
        # Home Assistant's statestream publishes the person's state as plain text.
        broker.pub("owntracks/alice/phone", '{"_type":"location","lat":52.3702,"lon":4.8952,"acc":13,"batt":73,'
                                            '"tid":"al","tst":1733550000,"inregions":["home"]}')
        broker.pub("homeassistant/person/bob/state", "not_home")

        # The rows are drawn anew with each snapshot (every second): a row read between two
        # draws is gone; each look is taken again until it holds.
        def cells(name, with_class=False):
            try:
                row = presence().get(name)
                if not row:
                    return None
                texts = [c.text for c in row.find_elements(By.TAG_NAME, "td")]
                return texts + [row.get_attribute("class") or ""] if with_class else texts
            except StaleElementReferenceException:
                return None
        wait("alice home and bob away", lambda: (cells("alice") or [""])[1:2] == ["home"]
             and (cells("bob") or [""])[1:2] == ["away"])
        for name in ("alice", "bob"):
            wait(f"{name}'s since, with how long ago", lambda: "ago" in ((cells(name) or ["", "", ""])[2]))

        def carol_marked():
            c = cells("carol", with_class=True)
            return c is not None and c[1:3] == ["unknown", "–"] and "warn" in c[3].split()
        wait("carol unknown and marked", carol_marked)
    check("the People panel: each person's presence and since when, unknown marked", people_panel)

    def broker_stops():
        broker.stop()
        wait("connection state 'disconnected'",
             lambda: driver.find_element(By.ID, "conn").get_attribute("data-state") == "disconnected")
        broker.start()
        wait("connected again", lambda: driver.find_element(By.ID, "conn").get_attribute("data-state") == "connected",
             timeout=40)
    check("the connection state flips when the broker stops and back when it returns", broker_stops)

    def bridge_stops():
        stop(bridge)
        wait("connection state 'unreachable'",
             lambda: driver.find_element(By.ID, "conn").get_attribute("data-state") == "unreachable")
    check("the page says so when the bridge itself is gone", bridge_stops)

    def console_clean():
        entries = driver.get_log("browser")
        # EventSource reports the stopped bridge as a network error (and the thumbnail it can no
        # longer serve when the list redraws); the sign-in form is the page's answer 401 before
        # the token; anything else is a bug.
        errors = [e for e in entries if e["level"] == "SEVERE" and "api/events" not in e["message"]
                  and not e["message"].startswith(url + " - Failed to load resource: the server responded with a status of 401")
                  and not ("/attachments/" in e["message"] and "ERR_CONNECTION_REFUSED" in e["message"])]
        assert not errors, errors
    check("no JavaScript error in the browser log", console_clean)


def load(broker, seconds, stop=None):
    """A varying stream over several topics (mosquitto_pub -l, one line per message)."""
    topics = ["home/front/doorbell", "home/garden/doorbell", "home/back/doorbell", "sensors/kitchen/telemetry",
              "sensors/attic/telemetry", "sensors/garage/telemetry", "alarm/hall", "apns/phone"]
    procs = {t: subprocess.Popen(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(broker.port), "-t", t, "-l"],
                                 stdin=subprocess.PIPE, text=True) for t in topics}
    start_t = time.monotonic()
    n = 0
    while time.monotonic() - start_t < seconds and not (stop and stop.is_set()):
        phase = (time.monotonic() - start_t) / seconds
        rate = 60 + 50 * math.sin(phase * 2 * math.pi * 1.5)
        for _ in range(max(1, int(rate / 10))):
            t = random.choices(topics, weights=[5, 1, 2, 8, 4, 3, 2, 1])[0]
            if t.endswith("doorbell"):
                line = json.dumps({"who": random.choice(["Alice", "Bob", "Carol"]), "test": random.random() < 0.2})
            elif t.startswith("alarm"):
                line = json.dumps({"zone": "hall"})
            elif t.startswith("apns"):
                line = json.dumps({"aps": {"alert": {"title": "TV", "body": "x"}}}) if random.random() < 0.7 else "garbage"
            else:
                line = json.dumps({"t": round(random.uniform(18, 24), 1)})
            procs[t].stdin.write(line + "\n")
            n += 1
        for p in procs.values():
            p.stdin.flush()
        time.sleep(0.1)
    for p in procs.values():
        p.stdin.close()
        p.wait(10)
    return n


if __name__ == "__main__":
    main()
