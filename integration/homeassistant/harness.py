"""Processes for the Home Assistant tests: a test mosquitto, a real Home Assistant core and
pushbridge, each on a free loopback port in a temporary directory, stopped by PID.

Every wait is bounded (`wait_for` polls a condition until a deadline) and says what it
waited for when it gives up.
"""

import asyncio
import http.server
import json
import os
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request

import aiohttp
import paho.mqtt.client as mqtt

HA_START_TIMEOUT = 180  # 2 loaded cores; a cold start takes ~10 s alone
WAIT = 45  # seconds for any one condition


class Timeout(AssertionError):
    pass


def wait_for(what, condition, timeout=WAIT, interval=0.2):
    """Polls `condition` until it returns a truthy value (returned) or `timeout` passes."""
    deadline = time.monotonic() + timeout
    last_error = None
    while time.monotonic() < deadline:
        try:
            value = condition()
            if value:
                return value
        except Exception as error:  # a poll that fails counts as "not yet"
            last_error = error
        time.sleep(interval)
    raise Timeout(f"timed out after {timeout} s waiting for {what}"
                  + (f" (last error: {last_error!r})" if last_error else ""))


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_open(port):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


class Process:
    """A child process with its output in a log file; stopped by its PID."""

    def __init__(self, name, argv, log_path, cwd=None):
        self.name = name
        self.log_path = log_path
        self.log = open(log_path, "ab")
        self.proc = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT, cwd=cwd,
                                     stdin=subprocess.DEVNULL)

    @property
    def pid(self):
        return self.proc.pid

    def running(self):
        return self.proc.poll() is None

    def signal(self, sig):
        if self.running():
            os.kill(self.proc.pid, sig)

    def stop(self, timeout=30):
        """SIGTERM, then SIGKILL after `timeout` s; returns the exit code."""
        if self.running():
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        self.log.close()
        return self.proc.returncode

    def tail(self, lines=40):
        try:
            with open(self.log_path, "rb") as f:
                return b"\n".join(f.read().splitlines()[-lines:]).decode(errors="replace")
        except OSError:
            return ""


class Mosquitto:
    def __init__(self, directory):
        self.port = free_port()
        conf = os.path.join(directory, "mosquitto.conf")
        with open(conf, "w") as f:
            f.write(f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence false\n")
        self.process = Process("mosquitto", ["mosquitto", "-c", conf], os.path.join(directory, "mosquitto.log"))
        wait_for("mosquitto to listen", lambda: port_open(self.port), timeout=20)

    def stop(self):
        self.process.stop()


class Recorder:
    """A paho client that keeps every message of its subscriptions."""

    def __init__(self, port, topics, client_id):
        self.messages = []
        self.lock = threading.Lock()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id,
                                  protocol=mqtt.MQTTv5)
        subscribed = threading.Event()
        self.client.on_message = self._on_message
        self.client.on_subscribe = lambda *a: subscribed.set()
        self.client.on_connect = lambda c, u, f, rc, p=None: c.subscribe([(t, 1) for t in topics])
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        if not subscribed.wait(20):
            raise Timeout("the recorder's SUBACK")

    def _on_message(self, client, userdata, message):
        with self.lock:
            self.messages.append((message.topic, message.payload, message.retain))

    def on(self, topic):
        with self.lock:
            return [m for m in self.messages if m[0] == topic]

    def publish(self, topic, payload, retain=False, qos=1):
        info = self.client.publish(topic, payload, qos=qos, retain=retain)
        info.wait_for_publish(20)

    def stop(self):
        self.client.loop_stop()
        self.client.disconnect()


class PushServer:
    """Stands in for the Companion app's push relay: keeps the JSON of every notification
    Home Assistant's mobile_app notify posts to it (push_token says which phone)."""

    def __init__(self):
        self.received = []
        self.lock = threading.Lock()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with outer.lock:
                    outer.received.append(json.loads(body))
                reply = b"{}"
                self.send_response(201)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/push"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def to(self, push_token, message=None):
        """The notifications posted for the phone with `push_token` (with that message text)."""
        with self.lock:
            return [n for n in self.received if n.get("push_token") == push_token
                    and (message is None or n.get("message") == message)]

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


class Bridge:
    """pushbridge on the test broker with a config written to `directory`."""

    def __init__(self, binary, directory, config_text):
        self.binary = binary
        self.config_path = os.path.join(directory, "bridge.yml")
        self.write_config(config_text)
        self.process = Process("pushbridge", [binary, "run", "-c", self.config_path],
                               os.path.join(directory, "bridge.log"))

    def write_config(self, text):
        with open(self.config_path, "w") as f:
            f.write(text)

    def check(self):
        return subprocess.run([self.binary, "check", "-c", self.config_path], capture_output=True,
                              text=True, timeout=60)

    def reload(self, text):
        self.write_config(text)
        self.process.signal(signal.SIGHUP)

    def stop(self):
        return self.process.stop()


class HomeAssistant:
    """A real Home Assistant core with a minimal configuration, onboarded, MQTT set up."""

    def __init__(self, venv, directory, mqtt_port, blueprints=(), automations="", extra_config=""):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.config_dir = os.path.join(directory, "ha-config")
        os.makedirs(os.path.join(self.config_dir, "blueprints", "automation", "pushbridge"))
        for path in blueprints:
            target = os.path.join(self.config_dir, "blueprints", "automation", "pushbridge", os.path.basename(path))
            with open(path) as src, open(target, "w") as dst:
                dst.write(src.read())
        with open(os.path.join(self.config_dir, "automations.yaml"), "w") as f:
            f.write(automations or "[]\n")
        with open(os.path.join(self.config_dir, "configuration.yaml"), "w") as f:
            f.write(f"""homeassistant:
  name: pushbridge test
  latitude: 52.37
  longitude: 4.89
  elevation: 0
  unit_system: metric
  time_zone: UTC
  country: NL
  currency: EUR
http:
  server_host: 127.0.0.1
  server_port: {self.port}
api:
onboarding:
config:
notify:
automation: !include automations.yaml
logger:
  default: warning
{extra_config}""")
        self.venv = venv
        self.log_path = os.path.join(directory, "hass.log")
        self.started_at = time.monotonic()
        self._start()
        self.token = self._onboard()
        self._setup_mqtt(mqtt_port)
        self.ready_after = time.monotonic() - self.started_at

    def _start(self):
        self.process = Process("hass", [os.path.join(self.venv, "bin", "hass"), "-c", self.config_dir,
                                        "--skip-pip", "--log-no-color"], self.log_path)
        wait_for("Home Assistant's HTTP API", self._answers, timeout=HA_START_TIMEOUT, interval=0.5)

    def restart(self, while_down=None):
        """Stops Home Assistant (SIGTERM), runs `while_down`, starts it again on the same
        configuration (onboarded, MQTT set up: the token stays valid)."""
        self.process.stop(timeout=60)
        if while_down:
            while_down()
        self._start()

    def add_config(self, text):
        """Appends `text` to configuration.yaml (it counts from the next start)."""
        with open(os.path.join(self.config_dir, "configuration.yaml"), "a") as f:
            f.write(text)

    def _answers(self):
        if not self.process.running():
            raise AssertionError("Home Assistant exited:\n" + self.process.tail())
        try:
            urllib.request.urlopen(self.base + "/api/onboarding", timeout=5)
            return True
        except urllib.error.HTTPError:
            return True
        except OSError:
            return False

    # --- REST

    def request(self, method, path, body=None, token=True, form=None, timeout=30):
        headers = {}
        data = None
        if token:
            headers["Authorization"] = f"Bearer {self.token}"
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        elif form is not None:
            data = "&".join(f"{k}={v}" for k, v in form.items()).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        req = urllib.request.Request(self.base + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as response:
                text = response.read().decode()
                return response.status, (json.loads(text) if text else None)
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(errors="replace")

    def state(self, entity_id):
        """The entity's state object, or None when Home Assistant does not know it."""
        status, body = self.request("GET", f"/api/states/{entity_id}")
        return body if status == 200 else None

    def states(self):
        status, body = self.request("GET", "/api/states")
        assert status == 200, body
        return body

    def call(self, domain, service, data):
        status, body = self.request("POST", f"/api/services/{domain}/{service}", data)
        assert status == 200, f"{domain}.{service}: {status} {body}"
        return body

    def _onboard(self):
        client_id = self.base + "/"
        status, body = self.request("POST", "/api/onboarding/users", {
            "client_id": client_id, "name": "Test", "username": "test",
            "password": "pushbridge-test-password", "language": "en"}, token=False)
        assert status == 200, f"onboarding: {status} {body}"
        status, tokens = self.request("POST", "/auth/token", token=False, form={
            "grant_type": "authorization_code", "code": body["auth_code"], "client_id": client_id})
        assert status == 200, f"token: {status} {tokens}"
        return tokens["access_token"]

    def _setup_mqtt(self, port):
        status, flow = self.request("POST", "/api/config/config_entries/flow", {"handler": "mqtt"})
        assert status == 200, f"mqtt flow: {status} {flow}"
        status, result = self.request("POST", f"/api/config/config_entries/flow/{flow['flow_id']}",
                                      {"broker": "127.0.0.1", "port": port})
        assert status == 200 and result.get("type") == "create_entry", f"mqtt flow step: {status} {result}"

    # --- the Companion app, as it talks to Home Assistant

    def register_phone(self, device_name, push_url, push_token):
        """Registers a phone as the Companion app does (POST /api/mobile_app/registrations,
        push_url and push_token in app_data: Home Assistant then offers
        notify.mobile_app_<device name as a slug> and posts its notifications to push_url);
        returns the registration's webhook id."""
        status, body = self.request("POST", "/api/mobile_app/registrations", {
            "app_id": "io.robbie.HomeAssistant", "app_name": "Home Assistant", "app_version": "2025.4",
            "device_name": device_name, "manufacturer": "Apple", "model": "iPhone16,1", "os_name": "iOS",
            "os_version": "18.4", "supports_encryption": False,
            "app_data": {"push_token": push_token, "push_url": push_url}})
        assert status == 201, f"mobile_app registration: {status} {body}"
        return body["webhook_id"]

    def report_location(self, webhook_id, latitude, longitude):
        """The app's location update (webhook `update_location`): its device tracker, and the
        person it belongs to, become the zone of that place or `not_home`."""
        status, body = self.request("POST", f"/api/webhook/{webhook_id}", {
            "type": "update_location", "data": {"gps": [latitude, longitude], "gps_accuracy": 10}}, token=False)
        assert status == 200, f"update_location: {status} {body}"

    # --- WebSocket API

    def ws(self, *commands):
        """Sends each command (a dict without `id`) and returns their `result`s."""
        return asyncio.run(self._ws(commands))

    async def _ws(self, commands):
        url = f"ws://127.0.0.1:{self.port}/api/websocket"
        timeout = aiohttp.ClientTimeout(total=60)
        async with aiohttp.ClientSession(timeout=timeout) as session:
            async with session.ws_connect(url) as ws:
                assert (await ws.receive_json())["type"] == "auth_required"
                await ws.send_json({"type": "auth", "access_token": self.token})
                reply = await ws.receive_json()
                assert reply["type"] == "auth_ok", reply
                results = []
                for number, command in enumerate(commands, start=1):
                    await ws.send_json(dict(command, id=number))
                    while True:
                        reply = await ws.receive_json()
                        if reply.get("id") == number and reply.get("type") == "result":
                            break
                    assert reply["success"], f"{command}: {reply}"
                    results.append(reply["result"])
                return results if len(results) != 1 else results[0]

    def stop(self):
        return self.process.stop(timeout=60)
