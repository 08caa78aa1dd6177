"""pushbridge against a real Home Assistant core (MQTT discovery, the notify and event entities).

One mosquitto, one Home Assistant (started once for the module: its start is the slow part)
and one pushbridge; the checks run in order against them and go through Home Assistant
itself (REST /api/states, the WebSocket API's registries and automation traces).

Run by integration/homeassistant/run.sh (from `make test`); exits 1 when a check fails.
"""

import datetime
import json
import os
import shutil
import signal
import sys
import tempfile
import time
import traceback

import harness
import people_checks
from harness import wait_for

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
BLUEPRINT = os.path.join(REPO, "examples", "homeassistant", "blueprints", "pushbridge_forward.yaml")
CLIENT_ID = "pb-ha-test"
NODE = "pb_ha_test"  # the client id as a slug: the node id and the entity ids' prefix
PREFIX = "homeassistant"

BRIDGE_YML = """
broker: {{host: 127.0.0.1, port: {port}, client_id: {client_id}}}
entitlements: [com.apple.developer.usernotifications.filtering]
routes:
  - name: leak                      # Zigbee2MQTT water-leak sensors named leak/<room>
    topic: zigbee2mqtt/leak/+
    collapse_id: "leak-{{{{ levels[2] }}}}"
    alert:
      title: Water leak
      subtitle: "{{{{ levels[2] }}}}"
      body: "Water detected in the {{{{ levels[2] }}}}."
      interruption_level: time-sensitive
      thread_id: water
  - name: flood                     # a condition route: raised, repeated, acknowledged, cleared
    topic: zigbee2mqtt/flood/+
    alert:
      title: Flood
      body: "Water in the {{{{ levels[2] }}}}."
    condition:
      key: "{{{{ topic }}}}"
      active: 'payload.water_leak == true'
      repeat: {{every: 2s}}
  - name: door                      # a doorbell camera: its last snapshot goes with the alert
    topic: cam/door/event
    alert: {{title: Doorbell, body: "{{{{ payload.who }}}} is at the door"}}
    attachments: [{{identifier: snapshot, from_topic: cam/door/snapshot}}]
  - name: visitor                   # the blueprint's audiences: everyone, home, away
    topic: visitor/+
    input: text
    alert: {{title: Visitor, body: "{{{{ raw }}}}"}}
{alarm_route}{extra_routes}  - name: "Küche {{{{x}}}}'s \\"leak\\""    # a name that needs quoting in HA's templates
    topic: odd/+
    input: text
  - name: ha-notify                 # what Home Assistant sends with the notify entity
    topic: pushbridge/notify
    alert:
      title: "{{{{ payload.title | default('Home Assistant') }}}}"
      body: "{{{{ payload.message | default(raw) }}}}"
extension:
  filters:
    - name: dry
      routes: [leak]
      suppress: 'payload.water_leak != true'
    - name: notify-dedupe
      routes: [ha-notify]
      dedupe: {{key: "{{{{ raw }}}}", window: 10m}}
conditions: {{ack_topic: pushbridge/ack}}
attachments: {{public_url: "https://pushbridge.example.com"}}   # HA only passes the URL on
monitoring: {{interval: 500ms}}
homeassistant:
  device_name: Test bridge
"""

ALARM_ROUTE = """  - name: alarm
    topic: alarm/+
    input: text
    alert:
      title: ALARM
      body: "{{ raw }}"
      interruption_level: critical
      sound: {name: default, critical: true, volume: 1.0}
"""

GARAGE_ROUTE = """  - name: garage
    topic: garage/door
    input: text
"""

AUTOMATIONS = f"""
- id: pb_leak_forward
  alias: leak to phone
  use_blueprint:
    path: pushbridge/pushbridge_forward.yaml
    input:
      event_entity: event.{NODE}_leak
      notify_service: notify.persistent_notification
- id: pb_flood_forward
  alias: flood to phone
  use_blueprint:
    path: pushbridge/pushbridge_forward.yaml
    input:
      event_entity: event.{NODE}_flood
      notify_service: notify.persistent_notification
      ack_topic: pushbridge/ack
- id: pb_door_forward
  alias: door to phone
  use_blueprint:
    path: pushbridge/pushbridge_forward.yaml
    input:
      event_entity: event.{NODE}_door
      notify_service: notify.persistent_notification
- id: pb_alarm_forward
  alias: alarm to phone
  use_blueprint:
    path: pushbridge/pushbridge_forward.yaml
    input:
      event_entity: event.{NODE}_alarm
      notify_service: notify.persistent_notification
- id: pb_visitor_everyone
  alias: visitor to everyone (the default audience; the people are ignored)
  use_blueprint:
    path: pushbridge/pushbridge_forward.yaml
    input:
      event_entity: event.{NODE}_visitor
      notify_service: notify.persistent_notification
      people: [person.alice, person.bob]
- id: pb_visitor_home
  alias: visitor to the people at home
  use_blueprint:
    path: pushbridge/pushbridge_forward.yaml
    input:
      event_entity: event.{NODE}_visitor
      audience: home
      people: [person.alice, person.bob]
- id: pb_visitor_away
  alias: visitor to the people away
  use_blueprint:
    path: pushbridge/pushbridge_forward.yaml
    input:
      event_entity: event.{NODE}_visitor
      audience: away
      people: [person.alice, person.bob]
- id: pb_visitor_mapped
  alias: visitor to Bob when he is away, through the notify action given for him
  use_blueprint:
    path: pushbridge/pushbridge_forward.yaml
    input:
      event_entity: event.{NODE}_visitor
      audience: away
      people: [person.bob]
      people_notify:
        person.bob: notify.persistent_notification
"""

# Two people, each with the Companion app on a phone (registered by the checks through the
# app's own API, its pushes posted to a PushServer). (Statestream comes with a restart, once
# the MQTT integration exists: people_checks.test_statestream_publishes_person_states.)
HA_EXTRA_CONFIG = """mobile_app:
person:
  - name: Alice
    id: alice
    device_trackers: [device_tracker.alice_s_iphone]
  - name: Bob
    id: bob
    device_trackers: [device_tracker.bob_s_iphone]
"""


ODD = "Küche {{x}}'s \"leak\""
ROUTES = ["leak", "flood", "door", "visitor", "alarm", "garage", "ha-notify", ODD]
ROUTE_IDS = {"leak": "leak", "flood": "flood", "door": "door", "visitor": "visitor", "alarm": "alarm", "garage": "garage",
             "ha-notify": "ha_notify", ODD: "k_che_x_s_leak"}
COUNTERS = ["received", "delivered", "suppressed", "rejected"]


class World:
    """The processes every check shares."""

    def __init__(self):
        self.directory = tempfile.mkdtemp(prefix="pushbridge-ha-")
        self.venv = os.environ["HA_VENV"]
        self.binary = os.environ["PUSHBRIDGE_BIN"]
        self.broker = harness.Mosquitto(self.directory)
        self.recorder = harness.Recorder(self.broker.port, ["display/#", "pushbridge/#", f"{PREFIX}/#"],
                                         "ha-test-recorder")
        self.push = harness.PushServer()
        self.phones = {}  # person id -> the Companion app registration's webhook id
        self.people_bridge = None  # the second bridge of the people check, when it runs
        self.ha = harness.HomeAssistant(self.venv, self.directory, self.broker.port,
                                        blueprints=[BLUEPRINT], automations=AUTOMATIONS,
                                        extra_config=HA_EXTRA_CONFIG)
        self.bridge = harness.Bridge(self.binary, self.directory, self.config(with_garage=True))

    def config(self, with_garage, with_alarm=True):
        return BRIDGE_YML.format(port=self.broker.port, client_id=CLIENT_ID,
                                 alarm_route=ALARM_ROUTE if with_alarm else "",
                                 extra_routes=GARAGE_ROUTE if with_garage else "")

    def stop(self):
        stops = [self.bridge.stop, self.ha.stop, self.recorder.stop, self.broker.stop, self.push.stop]
        if self.people_bridge:
            stops.insert(0, self.people_bridge.stop)
        for stop in stops:
            try:
                stop()
            except Exception as error:
                print(f"  (while stopping: {error!r})")

    def stats(self):
        """The last stats snapshot the bridge published."""
        messages = self.recorder.on("pushbridge/stats")
        return json.loads(messages[-1][1]) if messages else None

    def state(self, entity_id):
        return self.ha.state(entity_id)

    def state_is(self, entity_id, value):
        s = self.ha.state(entity_id)
        return s is not None and s["state"] == value

    def registries(self):
        devices, entities = self.ha.ws({"type": "config/device_registry/list"},
                                       {"type": "config/entity_registry/list"})
        return devices, entities

    def our_device(self):
        devices, _ = self.registries()
        return next((d for d in devices if ["mqtt", f"pushbridge:{CLIENT_ID}"] in d["identifiers"]), None)


def finished_runs(w, automation_id, since=""):
    """The automation's runs that got to call the notify service, started after `since` (ISO)."""
    traces = w.ha.ws({"type": "trace/list", "domain": "automation", "item_id": automation_id})
    return [t for t in traces if t.get("script_execution") == "finished" and t["timestamp"]["start"] > since]


def ha_now(w):
    """Now as Home Assistant writes time stamps (ISO, UTC; the same machine's clock)."""
    return datetime.datetime.now(datetime.timezone.utc).isoformat()


# --- checks, in order


def test_device_and_entities(w):
    """The device and every entity exist with the right names, units and state classes."""
    expected = {f"binary_sensor.{NODE}_connected", f"sensor.{NODE}_in_flight", f"sensor.{NODE}_latency_p99",
                f"notify.{NODE}_notify"}
    for route in ROUTES:
        rid = ROUTE_IDS[route]
        expected |= {f"sensor.{NODE}_{rid}_{c}" for c in COUNTERS} | {f"event.{NODE}_{rid}"}
    expected.add(f"sensor.{NODE}_flood_active_conditions")
    wait_for("all discovered entities in /api/states",
             lambda: expected <= {s["entity_id"] for s in w.ha.states()})
    device = wait_for("the device in the device registry", w.our_device)
    assert device["name"] == "Test bridge", device
    assert device["manufacturer"] == "pushbridge", device
    assert device["sw_version"], device
    _, entities = w.registries()
    ours = {e["entity_id"]: e for e in entities if e["device_id"] == device["id"]}
    assert set(ours) == expected, sorted(set(ours) ^ expected)
    assert ours[f"sensor.{NODE}_in_flight"]["entity_category"] == "diagnostic"
    assert ours[f"sensor.{NODE}_latency_p99"]["entity_category"] == "diagnostic"
    assert ours[f"sensor.{NODE}_leak_received"]["entity_category"] is None
    assert ours[f"sensor.{NODE}_leak_received"]["unique_id"] == f"pushbridge:{CLIENT_ID}:route:leak:received"
    s = w.state(f"sensor.{NODE}_leak_delivered")["attributes"]
    assert s["friendly_name"] == "Test bridge leak delivered", s
    assert s["state_class"] == "total_increasing" and s["unit_of_measurement"] == "messages", s
    s = w.state(f"sensor.{NODE}_ha_notify_rejected")["attributes"]
    assert s["friendly_name"] == "Test bridge ha-notify rejected" and s["state_class"] == "total_increasing", s
    s = w.state(f"sensor.{NODE}_latency_p99")["attributes"]
    assert s["unit_of_measurement"] == "ms" and s["state_class"] == "measurement" and s["device_class"] == "duration", s
    s = w.state(f"sensor.{NODE}_in_flight")["attributes"]
    assert s["unit_of_measurement"] == "messages" and s["state_class"] == "measurement", s
    s = w.state(f"binary_sensor.{NODE}_connected")["attributes"]
    assert s["device_class"] == "connectivity" and s["friendly_name"] == "Test bridge Connected", s
    s = w.state(f"event.{NODE}_leak")["attributes"]
    assert s["event_types"] == ["delivered"] and s["friendly_name"] == "Test bridge leak", s
    assert w.state(f"notify.{NODE}_notify")["attributes"]["friendly_name"] == "Test bridge Notify"
    # Every discovery config names its origin.
    configs = [m for m in w.recorder.messages if m[0].startswith(f"{PREFIX}/") and m[0].endswith("/config") and m[1]]
    assert configs and all(json.loads(p)["origin"]["name"] == "pushbridge" for _, p, _ in configs)


def test_connectivity_sensor_is_on_while_the_bridge_runs(w):
    wait_for("binary_sensor connected = on", lambda: w.state_is(f"binary_sensor.{NODE}_connected", "on"))
    wait_for("sensor in_flight = 0", lambda: w.state_is(f"sensor.{NODE}_in_flight", "0"))


def test_delivered_alert_fires_the_event_entity(w):
    w.recorder.publish("zigbee2mqtt/leak/kitchen", json.dumps({"water_leak": True, "battery": 97}))

    def fired():
        s = w.state(f"event.{NODE}_leak")
        return s if s and s["attributes"].get("source_topic") == "zigbee2mqtt/leak/kitchen" else None

    a = wait_for("event.leak to fire", fired)["attributes"]
    assert a["event_type"] == "delivered", a
    assert a["title"] == "Water leak" and a["subtitle"] == "kitchen", a
    assert a["body"] == "Water detected in the kitchen.", a
    assert a["interruption_level"] == "time-sensitive" and a["thread_id"] == "water", a
    assert a["collapse_id"] == "leak-kitchen" and a["route"] == "leak", a
    assert len(a["id"]) == 36, a
    assert "sound_critical" not in a, a
    wait_for("sensor leak_delivered = 1", lambda: w.state_is(f"sensor.{NODE}_leak_delivered", "1"))
    wait_for("sensor leak_received = 1", lambda: w.state_is(f"sensor.{NODE}_leak_received", "1"))


def test_counters_of_a_route_with_an_odd_name(w):
    """Quotes, braces and non-ASCII in a route name reach HA's value_template intact."""
    w.recorder.publish("odd/a", "hello")
    wait_for("the odd route's delivered = 1", lambda: w.state_is(f"sensor.{NODE}_k_che_x_s_leak_delivered", "1"))
    a = w.state(f"sensor.{NODE}_k_che_x_s_leak_received")
    assert a["state"] == "1" and a["attributes"]["friendly_name"] == f"Test bridge {ODD} received", a
    assert w.state(f"event.{NODE}_k_che_x_s_leak")["attributes"]["route"] == ODD


def test_suppressed_alert_does_not_fire(w):
    before = w.state(f"event.{NODE}_leak")
    w.recorder.publish("zigbee2mqtt/leak/cellar", json.dumps({"water_leak": False, "battery": 90}))
    wait_for("sensor leak_suppressed = 1", lambda: w.state_is(f"sensor.{NODE}_leak_suppressed", "1"))
    wait_for("sensor leak_received = 2", lambda: w.state_is(f"sensor.{NODE}_leak_received", "2"))
    after = w.state(f"event.{NODE}_leak")
    assert after["state"] == before["state"], (before, after)
    assert after["attributes"]["source_topic"] == "zigbee2mqtt/leak/kitchen", after
    assert not any(m[0].endswith("/cellar") for m in w.recorder.messages if m[0].startswith("display/"))


def test_critical_alert_carries_sound_critical(w):
    w.recorder.publish("alarm/house", "Intruder in the hallway")

    def fired():
        s = w.state(f"event.{NODE}_alarm")
        return s if s and s["attributes"].get("body") == "Intruder in the hallway" else None

    a = wait_for("event.alarm to fire", fired)["attributes"]
    assert a["sound_critical"] is True and a["interruption_level"] == "critical", a
    assert "collapse_id" not in a and "thread_id" not in a and "subtitle" not in a, a


def call_of(w, automation_id, body):
    """The parameters of the automation's notify call with message `body` (from its traces), or None."""
    traces = w.ha.ws({"type": "trace/list", "domain": "automation", "item_id": automation_id})
    for t in reversed(traces):
        if t.get("script_execution") != "finished":
            continue
        trace = w.ha.ws({"type": "trace/get", "domain": "automation", "item_id": automation_id,
                         "run_id": t["run_id"]})
        for step in (s for path, steps in trace["trace"].items() if path.startswith("action/") for s in steps):
            params = step.get("result", {}).get("params", {})
            if params.get("service_data", {}).get("message") == body:
                return params
    return None


def test_blueprint_maps_apple_fields_to_the_notify_call(w):
    """The automations made from the blueprint called their notify target with the
    interruption level, group, tag and the critical sound mapped (from their traces)."""
    leak = wait_for("the leak automation's notify call",
                    lambda: call_of(w, "pb_leak_forward", "Water detected in the kitchen."))
    assert (leak["domain"], leak["service"]) == ("notify", "persistent_notification"), leak
    assert leak["service_data"] == {
        "title": "Water leak", "message": "Water detected in the kitchen.",
        "data": {"push": {"interruption-level": "time-sensitive"}, "subtitle": "kitchen",
                 "group": "water", "tag": "leak-kitchen"}}, leak
    alarm = wait_for("the alarm automation's notify call", lambda: call_of(w, "pb_alarm_forward", "Intruder in the hallway"))
    assert alarm["service_data"]["data"] == {
        "push": {"interruption-level": "critical", "sound": {"name": "default", "critical": 1, "volume": 1.0}}}, alarm
    # The suppressed leak made no call: the leak automation finished exactly once.
    finished = [t for t in w.ha.ws({"type": "trace/list", "domain": "automation", "item_id": "pb_leak_forward"})
                if t.get("script_execution") == "finished"]
    assert len(finished) == 1, finished


def test_picture_reaches_the_event_and_the_blueprint_passes_it_as_image(w):
    """A route with an attachment: the event carries `attachments` as the display message has
    them, and the blueprint gives the first picture's URL to the notify call as `data.image`
    (the Companion app's attachment)."""
    # A 1×1 PNG, the camera's snapshot, then the ring.
    png = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de0000000c4944415408d763"
                        "f8cfc0000003010100c9fe92ef0000000049454e44ae426082")
    w.recorder.publish("cam/door/snapshot", png)
    w.recorder.publish("cam/door/event", json.dumps({"who": "Alice"}))
    display = json.loads(wait_for("the door's display message", lambda: w.recorder.on("display/cam/door/event"))[-1][1])
    url = display["attachments"][0]["url"]
    assert url.startswith("https://pushbridge.example.com/attachments/") and url.endswith("/snapshot.png"), display

    def fired():
        s = w.state(f"event.{NODE}_door")
        return s if s and s["attributes"].get("body") == "Alice is at the door" else None

    a = wait_for("event.door to fire", fired)["attributes"]
    assert a["attachments"] == [{"identifier": "snapshot", "type": "image/png", "size": len(png), "url": url}], a
    door = wait_for("the door automation's notify call", lambda: call_of(w, "pb_door_forward", "Alice is at the door"))
    assert door["service_data"] == {"title": "Doorbell", "message": "Alice is at the door", "data": {"image": url}}, door


def flood_event(w, event_type, since_state=None):
    """The flood event entity's attributes once it fired `event_type` (after `since_state`)."""
    def fired():
        s = w.state(f"event.{NODE}_flood")
        if not s or s["attributes"].get("event_type") != event_type:
            return None
        return s if since_state is None or s["state"] != since_state else None
    return wait_for(f"event.flood to fire {event_type}", fired, timeout=20)


def test_condition_events_reach_the_event_entity(w):
    """A condition route's event entity fires raised, then repeated (with alert_id and
    collapse_id); its active-count sensor says 1."""
    w.recorder.publish("zigbee2mqtt/flood/cellar", json.dumps({"water_leak": True, "battery": 97, "linkquality": 120}))
    raised = flood_event(w, "raised")
    a = raised["attributes"]
    assert a["collapse_id"] == "flood-zigbee2mqtt-flood-cellar" and len(a["alert_id"]) == 36, a
    assert a["event_types"] == ["delivered", "raised", "repeated", "escalated", "acknowledged", "snoozed", "cleared"], a
    repeated = flood_event(w, "repeated", since_state=raised["state"])["attributes"]
    assert repeated["alert_id"] == a["alert_id"], repeated
    wait_for("sensor flood_active_conditions = 1", lambda: w.state_is(f"sensor.{NODE}_flood_active_conditions", "1"))
    w.flood_alert = a["alert_id"]


def test_acknowledge_action_stops_the_repeats(w):
    """The Companion app's answer, fired through HA's REST API as the app does, with the
    blueprint's Acknowledge action: the blueprint publishes it to the ack topic and the
    bridge stops repeating."""
    status, _ = w.ha.request("POST", "/api/events/mobile_app_notification_action",
                             {"action": f"PUSHBRIDGE_ACK_{w.flood_alert}"})
    assert status == 200, status
    acked = flood_event(w, "acknowledged")["attributes"]
    assert acked["alert_id"] == w.flood_alert and acked["by"] == "home-assistant", acked
    shown = len([m for m in w.recorder.on("display/zigbee2mqtt/flood/cellar")])
    time.sleep(5)  # more than two repeat intervals
    assert len(w.recorder.on("display/zigbee2mqtt/flood/cellar")) == shown


def test_cleared_makes_the_blueprint_clear_the_notification(w):
    """`cleared`: the blueprint calls notify with clear_notification and the collapse id as tag."""
    since = ha_now(w)
    w.recorder.publish("zigbee2mqtt/flood/cellar", json.dumps({"water_leak": False, "battery": 97, "linkquality": 118}))
    flood_event(w, "cleared")

    def clear_call():
        for t in finished_runs(w, "pb_flood_forward", since):
            trace = w.ha.ws({"type": "trace/get", "domain": "automation", "item_id": "pb_flood_forward",
                             "run_id": t["run_id"]})
            for step in (s for path, steps in trace["trace"].items() if path.startswith("action/") for s in steps):
                params = step.get("result", {}).get("params", {})
                if params.get("service_data", {}).get("message") == "clear_notification":
                    return params
        return None

    call = wait_for("the flood automation's clear_notification call", clear_call)
    assert call["service_data"] == {"message": "clear_notification", "data": {"tag": "flood-zigbee2mqtt-flood-cellar"}}, call
    withdraw = wait_for("the withdraw message on the display topic", lambda: next(
        (m for m in (json.loads(p) for _, p, _ in w.recorder.on("display/zigbee2mqtt/flood/cellar"))
         if m.get("type") == "withdraw"), None))
    assert withdraw["alert_id"] == w.flood_alert and withdraw["reason"] == "cleared", withdraw
    wait_for("sensor flood_active_conditions = 0", lambda: w.state_is(f"sensor.{NODE}_flood_active_conditions", "0"))


def test_notify_entity_goes_through_the_filters(w):
    w.ha.call("notify", "send_message", {"entity_id": f"notify.{NODE}_notify",
                                         "message": "Garage door left open", "title": "Garage"})
    shown = wait_for("the notify entity's message on the display topic",
                     lambda: w.recorder.on("display/pushbridge/notify"))
    d = json.loads(shown[0][1])
    assert d["route"] == "ha-notify" and d["body"] == "Garage door left open", d
    # HA 2025.4's MQTT notify entity passes the message only (its title is dropped), so the
    # route's default title applies; a JSON message {"title","message"} gives one.
    assert d["title"] == "Home Assistant", d
    w.ha.call("notify", "send_message", {"entity_id": f"notify.{NODE}_notify",
                                         "message": json.dumps({"title": "Garage", "message": "Closed"})})
    wait_for("the JSON notify message on the display topic", lambda: len(w.recorder.on("display/pushbridge/notify")) == 2)
    d = json.loads(w.recorder.on("display/pushbridge/notify")[1][1])
    assert d["title"] == "Garage" and d["body"] == "Closed", d
    # The same text again is a repeat: the dedupe filter suppresses it.
    w.ha.call("notify", "send_message", {"entity_id": f"notify.{NODE}_notify", "message": "Garage door left open"})
    wait_for("sensor ha_notify_suppressed = 1", lambda: w.state_is(f"sensor.{NODE}_ha_notify_suppressed", "1"))
    assert len(w.recorder.on("display/pushbridge/notify")) == 2


def test_birth_message_makes_the_bridge_announce_again(w):
    """HA's birth message (homeassistant/status = online) brings back a config that was
    deleted from the broker; the status message is not counted as received."""
    topic = f"{PREFIX}/sensor/{NODE}/{NODE}_leak_received/config"
    entity = f"sensor.{NODE}_leak_received"
    received_before = w.stats()["totals"]["received"]
    w.recorder.publish(topic, b"", retain=True)
    wait_for(f"{entity} to disappear", lambda: w.state(entity) is None)
    w.recorder.publish(f"{PREFIX}/status", "online")
    wait_for(f"{entity} to come back", lambda: w.state(entity) is not None)
    wait_for("a fresh stats snapshot", lambda: w.stats()["uptime_s"] > 0 and len(w.recorder.on("pushbridge/stats")) > 2)
    totals = w.stats()["totals"]
    assert totals["received"] == received_before and totals["unrouted"] == 0, totals
    assert f"{PREFIX}/status" not in w.stats()["topics"]


def test_home_assistant_restart_gets_the_bridge_announced_again(w):
    """A real restart: a config deleted from the broker while HA is down is back after HA's
    birth message, without touching the bridge."""
    topic = f"{PREFIX}/sensor/{NODE}/{NODE}_leak_rejected/config"
    entity = f"sensor.{NODE}_leak_rejected"
    announcements = len([m for m in w.recorder.on(topic) if m[1]])
    w.restarted_at = ha_now(w)
    w.ha.restart(while_down=lambda: w.recorder.publish(topic, b"", retain=True))

    def live():
        s = w.state(entity)
        return s is not None and s["state"] == "0" and not s["attributes"].get("restored")

    wait_for(f"{entity} announced again after the restart", live)
    assert len([m for m in w.recorder.on(topic) if m[1]]) > announcements
    assert w.bridge.process.running()
    wait_for("binary_sensor connected = on", lambda: w.state_is(f"binary_sensor.{NODE}_connected", "on"))
    # The event entities came back with their last event: the blueprint did not resend it.
    assert w.state(f"event.{NODE}_leak")["attributes"]["source_topic"] == "zigbee2mqtt/leak/kitchen"
    assert not finished_runs(w, "pb_leak_forward", since=w.restarted_at), finished_runs(w, "pb_leak_forward")


def test_route_removed_by_reload_leaves_home_assistant(w):
    gone = [f"sensor.{NODE}_garage_{c}" for c in COUNTERS] + [f"event.{NODE}_garage"]
    assert all(w.state(e) is not None for e in gone)
    w.bridge.reload(w.config(with_garage=False))
    wait_for("the garage route's entities to be removed", lambda: all(w.state(e) is None for e in gone))
    _, entities = w.registries()
    assert not [e for e in entities if e["entity_id"] in gone]
    assert w.state(f"event.{NODE}_leak") is not None
    # The removal is an empty retained config: HA keeps it away after its own restart too.
    empties = {m[0] for m in w.recorder.messages if m[1] == b"" and f"_garage" in m[0]}
    assert len(empties) == 5, empties


def test_check_names_the_notify_route(w):
    out = w.bridge.check()
    assert out.returncode == 0, out.stderr
    assert "notify_topic=pushbridge/notify -> route 'ha-notify'" in out.stdout, out.stdout


def test_sigterm_turns_connectivity_off(w):
    w.bridge.process.signal(signal.SIGTERM)
    wait_for("binary_sensor connected = off", lambda: w.state_is(f"binary_sensor.{NODE}_connected", "off"))
    for entity in (f"sensor.{NODE}_leak_received", f"event.{NODE}_leak", f"notify.{NODE}_notify",
                   f"sensor.{NODE}_latency_p99"):
        wait_for(f"{entity} unavailable", lambda: w.state_is(entity, "unavailable"))
    assert w.bridge.process.proc.wait(30) == 0
    # Unavailable, not deleted.
    _, entities = w.registries()
    assert any(e["entity_id"] == f"event.{NODE}_leak" for e in entities)


def test_bridge_restart_brings_entities_back_without_replaying_alerts(w):
    """After the SIGTERM above: a new bridge, whose config lost the alarm route while it was
    stopped, makes the entities available again and removes the alarm route's; the event
    entity's restored last event does not make the blueprint notify again."""
    since = ha_now(w)
    w.bridge = harness.Bridge(w.binary, w.directory, w.config(with_garage=False, with_alarm=False))
    wait_for("binary_sensor connected = on", lambda: w.state_is(f"binary_sensor.{NODE}_connected", "on"))
    wait_for("event.leak available", lambda: not w.state_is(f"event.{NODE}_leak", "unavailable"))
    wait_for("sensor leak_received available (0 after the restart)",
             lambda: w.state_is(f"sensor.{NODE}_leak_received", "0"))
    assert w.state(f"event.{NODE}_leak")["attributes"]["source_topic"] == "zigbee2mqtt/leak/kitchen"
    gone = [f"sensor.{NODE}_alarm_{c}" for c in COUNTERS] + [f"event.{NODE}_alarm"]
    wait_for("the alarm route's entities to be removed (stale at start)", lambda: all(w.state(e) is None for e in gone))
    # A new alert still goes through.
    w.recorder.publish("zigbee2mqtt/leak/bathroom", json.dumps({"water_leak": True}))
    wait_for("the bathroom alert's notify call", lambda: finished_runs(w, "pb_leak_forward", since=since))
    runs = finished_runs(w, "pb_leak_forward", since=since)
    assert len(runs) == 1, runs


def test_sigkill_turns_connectivity_off_through_the_will(w):
    """A crash (SIGKILL): the broker publishes the bridge's will, offline, on the status topic."""
    assert w.state_is(f"binary_sensor.{NODE}_connected", "on")
    t0 = time.monotonic()
    w.bridge.process.signal(signal.SIGKILL)
    wait_for("binary_sensor connected = off", lambda: w.state_is(f"binary_sensor.{NODE}_connected", "off"))
    wait_for("event.leak unavailable", lambda: w.state_is(f"event.{NODE}_leak", "unavailable"))
    print(f"        (off {time.monotonic() - t0:.2f} s after the SIGKILL)")
    wait_for("the will on pushbridge/status", lambda: w.recorder.on("pushbridge/status")[-1][1] == b"offline")
    assert w.bridge.process.proc.wait(10) == -signal.SIGKILL


def test_home_assistant_logged_nothing_wrong_with_us(w):
    """No warning or error from the parts of Home Assistant that read what the bridge sends
    or run the blueprint (discovery schema errors, template errors, bad event payloads), nor
    from those the people checks use (the Companion app's phones, persons, statestream)."""
    ours = ("components.mqtt", "components.automation", "helpers.template", "components.blueprint",
            "components.event", "components.notify", "components.sensor", "components.binary_sensor",
            "helpers.script", "components.mobile_app", "components.person", "components.mqtt_statestream",
            "components.device_tracker")
    with open(w.ha.log_path, errors="replace") as f:
        bad = [line.rstrip() for line in f
               if (" WARNING " in line or " ERROR " in line) and any(f"[homeassistant.{o}" in line for o in ours)]
    assert not bad, "\n".join(bad[:20])


CHECKS = [test_device_and_entities, test_connectivity_sensor_is_on_while_the_bridge_runs,
          test_delivered_alert_fires_the_event_entity, test_counters_of_a_route_with_an_odd_name,
          test_suppressed_alert_does_not_fire,
          test_critical_alert_carries_sound_critical, test_blueprint_maps_apple_fields_to_the_notify_call,
          test_picture_reaches_the_event_and_the_blueprint_passes_it_as_image,
          people_checks.test_companion_phones_make_people_home_and_away,
          people_checks.test_blueprint_notifies_only_the_people_at_home_or_away,
          test_condition_events_reach_the_event_entity, test_acknowledge_action_stops_the_repeats,
          test_cleared_makes_the_blueprint_clear_the_notification,
          test_notify_entity_goes_through_the_filters, test_birth_message_makes_the_bridge_announce_again,
          test_home_assistant_restart_gets_the_bridge_announced_again,
          people_checks.test_statestream_publishes_person_states,
          people_checks.test_presence_from_statestream_decides_the_audience,
          test_route_removed_by_reload_leaves_home_assistant, test_check_names_the_notify_route,
          test_sigterm_turns_connectivity_off, test_bridge_restart_brings_entities_back_without_replaying_alerts,
          test_sigkill_turns_connectivity_off_through_the_will, test_home_assistant_logged_nothing_wrong_with_us]


def ha_version():
    """The version of the Home Assistant core package in this venv (what actually runs)."""
    import importlib.metadata
    return importlib.metadata.version("homeassistant")


def main():
    started = time.monotonic()
    try:
        world = World()
    except Exception:
        traceback.print_exc()
        print("FAILED: could not start the test world")
        return 1
    print(f"Home Assistant {ha_version()} (Python {sys.version.split()[0]}) ready after {world.ha.ready_after:.1f} s "
          f"(MQTT set up); files in {world.directory}")
    failures = 0
    skipped = []
    try:
        for check in CHECKS:
            t0 = time.monotonic()
            try:
                why = check(world)
                if isinstance(why, str):  # a check that cannot run here says why
                    skipped.append(check.__name__)
                    print(f"  skip  {check.__name__} ({why})")
                else:
                    print(f"  ok    {check.__name__} ({time.monotonic() - t0:.1f} s)")
            except Exception:
                failures += 1
                print(f"  FAIL  {check.__name__} ({time.monotonic() - t0:.1f} s)")
                traceback.print_exc()
                if not world.bridge.process.running():
                    print("--- pushbridge log (tail)\n" + world.bridge.process.tail())
                if check is CHECKS[0]:
                    print("  (the other checks need the discovered entities: not run)")
                    break
    finally:
        world.stop()
    total = time.monotonic() - started
    if failures:
        print("--- pushbridge log (tail)\n" + world.bridge.process.tail())
        print("--- hass log (tail)\n" + world.ha.process.tail(60))
        print(f"FAILED: {failures} of {len(CHECKS)} Home Assistant checks ({total:.1f} s)")
        return 1
    if not os.environ.get("PUSHBRIDGE_HA_KEEP"):  # set it to keep the logs and configs
        shutil.rmtree(world.directory, ignore_errors=True)
    print(f"passed: {len(CHECKS) - len(skipped)} Home Assistant checks in {total:.1f} s"
          + (f" ({len(skipped)} skipped: {', '.join(skipped)})" if skipped else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
