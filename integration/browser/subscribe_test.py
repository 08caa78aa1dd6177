#!/usr/bin/env python3
"""The Web Push subscribe page in a real browser: headless Chromium driven by selenium.

usage: subscribe_test.py BASE_URL TOKEN [ARTIFACT_DIR]

BASE_URL is a pushbridge monitoring server with the Web Push endpoints (the Swift test
WebPushBrowserTests starts one on a free loopback port). Checks: /subscribe loads with its
web app manifest (Chromium parses it without errors and finds its icons), the service worker
registers and activates, the page shows its state (asks for the token, then for permission),
the token is kept in localStorage, pressing the button ends in a shown state, the service
worker shows pushes delivered through DevTools (tag replaces, a withdraw closes), and the page
opens again offline from the service worker's cache. No JavaScript error in the log.

The browser's own push service (Google's FCM for Chromium) cannot be reached from here (no
internet), so `pushManager.subscribe` cannot succeed: the page must then show the "error"
state with the browser's reason, which is what this test expects; the delivery path itself
is tested against integration/webpush/receiver.py. Prints "subscribe: N passed, M failed"; exit 1
on failure. Saves a screenshot to ARTIFACT_DIR (default .build/test-artifacts).
"""
import json, os, shutil, sys, tempfile, time, traceback

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

BASE = sys.argv[1].rstrip("/") if len(sys.argv) > 2 else sys.exit(__doc__)
TOKEN = sys.argv[2]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
ARTIFACTS = sys.argv[3] if len(sys.argv) > 3 else os.path.join(ROOT, ".build", "test-artifacts")
TMP = tempfile.mkdtemp(prefix="pushbridge-subscribe-")
results = []


def wait(what, cond, timeout=45.0, every=0.1):
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


def check(name, fn):
    try:
        fn()
        results.append((name, None))
        print(f"ok   {name}")
    except Exception as e:
        results.append((name, e))
        print(f"FAIL {name}: {e}")
        traceback.print_exc()


def state(driver):
    el = driver.find_element(By.ID, "state")
    return el.get_attribute("data-state"), el.text, driver.find_element(By.ID, "detail").text


def run_checks(driver):
    url = BASE + "/subscribe"
    driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": BASE, "permissions": ["notifications"]})
    driver.get(url)

    def loads():
        assert driver.title == "pushbridge notifications", driver.title
        assert driver.find_element(By.TAG_NAME, "h1").text == "pushbridge notifications"
    check("the page loads", loads)

    def manifest():
        m = driver.execute_cdp_cmd("Page.getAppManifest", {})
        assert m.get("url", "").endswith("/manifest.webmanifest"), m.get("url")
        assert not m.get("errors"), m.get("errors")
        data = json.loads(m.get("data") or "{}")
        assert data.get("name") == "pushbridge notifications" and data.get("display") == "standalone", data
        for icon in data.get("icons", []):
            answer = driver.execute_async_script(
                "fetch(arguments[0]).then(r => arguments[1](r.status + ' ' + r.headers.get('content-type')))", icon["src"])
            assert answer.startswith("200 image/"), (icon, answer)
    check("Chromium parses the web app manifest without errors", manifest)

    def worker():
        active = wait("the service worker to activate", lambda: driver.execute_async_script(
            "const done = arguments[0];"
            "navigator.serviceWorker.getRegistration().then(r => done(r && r.active ? r.active.state + ' ' + r.scope : null));"))
        assert active.startswith("activated ") and active.endswith("/"), active
    check("the service worker registers and activates (scope: the server's root)", worker)

    def asks_for_token():
        s = wait("the token state", lambda: state(driver)[0] == "token" and state(driver))
        assert driver.find_element(By.ID, "token-form").is_displayed(), "no token form"
        assert not driver.find_element(By.ID, "subscribe").is_displayed(), s
    check("without a token the page asks for it", asks_for_token)

    def token_then_permission():
        driver.find_element(By.ID, "token").send_keys(TOKEN)
        driver.find_element(By.CSS_SELECTOR, "#token-form button").click()
        s = wait("the permission state", lambda: state(driver)[0] in ("permission", "subscribed", "error") and state(driver))
        assert s[0] == "permission", s
        assert driver.execute_script("return localStorage.getItem('pushbridge.subscribeToken')") == TOKEN
        assert driver.find_element(By.ID, "subscribe").is_displayed()
        driver.refresh()
        s = wait("the permission state after a reload", lambda: state(driver)[0] == "permission" and state(driver))
        assert not driver.find_element(By.ID, "token-form").is_displayed(), "asked for the token twice"
    check("the token is asked once (kept in localStorage), then the page asks for permission", token_then_permission)

    def press():
        driver.find_element(By.ID, "subscribe").click()
        s = wait("a state after subscribing", lambda: state(driver)[0] in ("subscribed", "error", "denied") and state(driver), timeout=60)
        # No push service is reachable from this machine: the browser cannot subscribe.
        assert s[0] == "error" and s[1] == "Subscribing failed" and s[2], s
        print(f"     (the browser said: {s[2]!r})")
        os.makedirs(ARTIFACTS, exist_ok=True)
        driver.save_screenshot(os.path.join(ARTIFACTS, "subscribe.png"))
    check("pressing the button shows the outcome (error: the browser's push service is unreachable here)", press)

    def push(message):
        # DevTools delivers a push message to the service worker as the push service would (the
        # payload already decrypted). The registration's id is not visible to scripts; a fresh
        # profile has this one registration (ids count up from 0), and an id that is no
        # registration is ignored, so the message is offered to the first few ids.
        for rid in (str(n) for n in range(32)):
            driver.execute_cdp_cmd("ServiceWorker.deliverPushMessage",
                                   {"origin": BASE + "/", "registrationId": rid, "data": json.dumps(message)})

    def shown():
        return driver.execute_async_script(
            "navigator.serviceWorker.getRegistration().then(r => r.getNotifications())"
            ".then(ns => arguments[0](ns.map(n => [n.tag, n.title, n.body, n.data && n.data.url || null]).sort()))")

    def notifications():
        driver.execute_cdp_cmd("ServiceWorker.enable", {})
        # The payloads WebPushPayload writes (see SubscriptionTests): two alerts with one tag, one with another.
        push({"type": "alert", "title": "Doorbell", "body": "front\nAlice is at the door", "tag": "doorbell-front",
              "data": {"id": "1", "route": "doorbell", "url": "/cameras/front"}})
        wait("the first notification", lambda: shown() == [["doorbell-front", "Doorbell", "front\nAlice is at the door", "/cameras/front"]])
        push({"type": "alert", "title": "Doorbell", "body": "front\nBob is at the door", "tag": "doorbell-front",
              "data": {"id": "2", "route": "doorbell"}})
        wait("the newer one to replace it", lambda: shown() == [["doorbell-front", "Doorbell", "front\nBob is at the door", None]])
        push({"type": "alert", "title": "Water leak", "body": "kitchen", "tag": "leak-kitchen", "require_interaction": True,
              "data": {"id": "3", "route": "leak"}})
        wait("a second tag", lambda: len(shown()) == 2)
        push({"type": "withdraw", "tag": "leak-kitchen", "data": {"id": "3", "route": "leak"}})
        wait("the withdraw to close the leak", lambda: shown() == [["doorbell-front", "Doorbell", "front\nBob is at the door", None]])
    check("the service worker shows pushes (a newer one with the same tag replaces) and a withdraw closes its tag", notifications)

    def offline():
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.emulateNetworkConditions",
                               {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        try:
            driver.get(url)
            wait("the page offline", lambda: driver.find_element(By.TAG_NAME, "h1").text == "pushbridge notifications")
            via = driver.execute_script("return performance.getEntriesByType('navigation')[0].workerStart > 0 ? 'worker' : 'network'")
            assert via == "worker", via
        finally:
            driver.execute_cdp_cmd("Network.emulateNetworkConditions",
                                   {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    check("the page opens offline, from the service worker's cache", offline)

    def no_errors():
        bad = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"
               and "net::ERR_INTERNET_DISCONNECTED" not in e.get("message", "")]
        assert not bad, bad
    check("no JavaScript errors", no_errors)


def main():
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=420,860",
              "--disable-extensions", "--no-first-run", "--disable-background-networking", f"--user-data-dir={TMP}/chrome"):
        options.add_argument(a)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(30)
    driver.set_script_timeout(30)
    try:
        run_checks(driver)
    finally:
        driver.quit()
        shutil.rmtree(TMP, ignore_errors=True)
    failed = [n for n, e in results if e]
    print(f"subscribe: {len(results) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
