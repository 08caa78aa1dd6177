"""The people checks of test_homeassistant.py: the blueprint's home/away audiences, and
presence from Home Assistant's person entities through MQTT statestream.

Two people, Alice and Bob, each with the Companion app registered through the app's own
API (POST /api/mobile_app/registrations: Home Assistant then offers
notify.mobile_app_alice_s_iphone and posts its notifications to the test's PushServer) and
moved by the app's location webhook; person.alice and person.bob follow their phones'
device trackers. The checks read what happened from the automation traces and from the
pushes the PushServer received.
"""

import json
import os
import subprocess

import harness
from harness import wait_for

NODE = "pb_ha_test"
HOME = (52.37, 4.89)      # Home Assistant's home zone (the harness's configuration.yaml, radius 100 m)
AWAY = (52.0907, 5.1214)  # 40 km off: not_home
PHONES = {"alice": "Alice's iPhone", "bob": "Bob's iPhone"}
# configuration.yaml: statestream publishes the person entities (base topic homeassistant).
STATESTREAM_CONFIG = """mqtt_statestream:
  base_topic: homeassistant
  include:
    domains: [person]
"""
# The blueprint's automations on the visitor route: everyone, home, away, and away for Bob
# alone through the notify action given for him (people_notify).
VISITOR_AUTOMATIONS = ("pb_visitor_everyone", "pb_visitor_home", "pb_visitor_away", "pb_visitor_mapped")
SERVICE = {"alice": "mobile_app_alice_s_iphone", "bob": "mobile_app_bob_s_iphone"}


def token(person):
    """The push token of the person's phone (what the PushServer tells the phones apart by)."""
    return f"push-token-{person}"


def move(w, person, where):
    """The person's phone reports `where` (HOME or AWAY); waits for the person's state."""
    w.ha.report_location(w.phones[person], *where)
    state = "home" if where == HOME else "not_home"
    wait_for(f"person.{person} = {state}", lambda: w.state_is(f"person.{person}", state))


def notify_calls(w, automation_id, body):
    """The notify actions the automation's runs for the alert with message `body` called
    (`notify.<service>`, in order), read from its traces."""
    calls = []
    for trace in runs_for(w, automation_id, body):
        for path, steps in trace["trace"].items():
            for step in steps:
                params = step.get("result", {}).get("params", {})
                if path.startswith("action/") and params.get("domain") == "notify":
                    calls.append(f"notify.{params['service']}")
    return calls


def runs_for(w, automation_id, body):
    """The finished runs of the automation for the alert with message `body`."""
    found = []
    for t in w.ha.ws({"type": "trace/list", "domain": "automation", "item_id": automation_id}):
        if t.get("script_execution") != "finished":
            continue
        trace = w.ha.ws({"type": "trace/get", "domain": "automation", "item_id": automation_id,
                         "run_id": t["run_id"]})
        variables = trace["trace"].get("trigger/0", [{}])[0].get("changed_variables", {})
        to_state = variables.get("trigger", {}).get("to_state") or {}
        if to_state.get("attributes", {}).get("body") == body:
            found.append(trace)
    return found


def ring(w, body, expect):
    """Publishes a visitor alert and waits until every automation of VISITOR_AUTOMATIONS ran for it;
    `expect` maps person -> the automations whose push that person's phone must get
    (exactly once each). Returns the notify calls per automation."""
    w.recorder.publish("visitor/front", body)
    for automation in VISITOR_AUTOMATIONS:
        wait_for(f"{automation}'s run for {body!r}", lambda: runs_for(w, automation, body))
    calls = {a: notify_calls(w, a, body) for a in VISITOR_AUTOMATIONS}
    for person in PHONES:
        wanted = len(expect.get(person, []))
        wait_for(f"{wanted} push(es) of {body!r} to {person}'s phone",
                 lambda: len(w.push.to(token(person), body)) >= wanted)
        pushed = w.push.to(token(person), body)
        assert len(pushed) == wanted, (person, pushed)
        for p in pushed:
            assert p["title"] == "Visitor" and p["registration_info"]["app_id"] == "io.robbie.HomeAssistant", p
    return calls


def test_companion_phones_make_people_home_and_away(w):
    """Each person's phone registers as the Companion app does; its notify action appears,
    and its location reports make the person home or away (not_home)."""
    for person, name in PHONES.items():
        w.phones[person] = w.ha.register_phone(name, w.push.url, token(person))

    def services():
        status, body = w.ha.request("GET", "/api/services")
        notify = next((d for d in body if d["domain"] == "notify"), {"services": {}}) if status == 200 else None
        return notify and all(s in notify["services"] for s in SERVICE.values())

    wait_for("notify.mobile_app_alice_s_iphone and notify.mobile_app_bob_s_iphone", services)
    for person in PHONES:
        wait_for(f"device_tracker.{person}_s_iphone", lambda: w.state(f"device_tracker.{person}_s_iphone"))
        trackers = w.state(f"person.{person}")["attributes"]["device_trackers"]
        assert trackers == [f"device_tracker.{person}_s_iphone"], trackers
    move(w, "alice", HOME)
    move(w, "bob", AWAY)


def test_blueprint_notifies_only_the_people_at_home_or_away(w):
    """The same alert through automations of the blueprint: everyone (the notify action, as
    before), only the people at home, only the people away, and away for Bob through the
    notify action given for him. Each person's phone gets it from the automation whose
    audience they are in, and from no other; after they swap places, the other way round;
    with both away, the home automation calls nothing."""
    calls = ring(w, "Parcel at the door", {"alice": ["home"], "bob": ["away"]})
    assert calls == {"pb_visitor_everyone": ["notify.persistent_notification"],
                     "pb_visitor_home": [f"notify.{SERVICE['alice']}"],
                     "pb_visitor_away": [f"notify.{SERVICE['bob']}"],
                     "pb_visitor_mapped": ["notify.persistent_notification"]}, calls
    move(w, "alice", AWAY)
    move(w, "bob", HOME)
    calls = ring(w, "Second parcel", {"alice": ["away"], "bob": ["home"]})
    assert calls == {"pb_visitor_everyone": ["notify.persistent_notification"],
                     "pb_visitor_home": [f"notify.{SERVICE['bob']}"],
                     "pb_visitor_away": [f"notify.{SERVICE['alice']}"],
                     "pb_visitor_mapped": []}, calls
    move(w, "bob", AWAY)
    calls = ring(w, "Nobody home", {"alice": ["away"], "bob": ["away"]})
    assert calls == {"pb_visitor_everyone": ["notify.persistent_notification"],
                     "pb_visitor_home": [],
                     "pb_visitor_away": [f"notify.{SERVICE['alice']}", f"notify.{SERVICE['bob']}"],
                     "pb_visitor_mapped": ["notify.persistent_notification"]}, calls
    # The push itself: what the app's relay got carries the alert as the notify call had it.
    push = w.push.to(token("alice"), "Parcel at the door")[0]
    assert push["message"] == "Parcel at the door" and push["data"] == {}, push


def test_statestream_publishes_person_states(w):
    """mqtt_statestream (base_topic homeassistant, domain person) publishes a person's state
    as plain text, retained, on homeassistant/person/<id>/state: `home` when the phone is at
    home, `not_home` when it is away. Statestream is a YAML integration that needs the MQTT
    integration at Home Assistant's start (else it logs "MQTT integration is not
    available" and stays off): it is added here and Home Assistant restarted."""
    w.ha.add_config(STATESTREAM_CONFIG)
    w.ha.restart()
    wait_for("MQTT statestream set up", lambda: "mqtt_statestream" in w.ha.ws({"type": "get_config"})["components"])
    topic = "homeassistant/person/alice/state"
    move(w, "alice", AWAY)
    move(w, "alice", HOME)
    wait_for(f"{topic} = home", lambda: (w.recorder.on(topic) or [(None, b"", False)])[-1][1] == b"home")
    move(w, "alice", AWAY)
    wait_for(f"{topic} = not_home", lambda: (w.recorder.on(topic) or [(None, b"", False)])[-1][1] == b"not_home")
    move(w, "alice", HOME)
    wait_for(f"{topic} = home", lambda: w.recorder.on(topic)[-1][1] == b"home")
    last = w.recorder.on(topic)[-1]
    assert last == (topic, b"home", False), last  # retained on the broker; a live message is not flagged
    # The broker keeps it: a new subscriber gets it at once, flagged retained.
    late = harness.Recorder(w.broker.port, [topic], "ha-test-late")
    try:
        wait_for(f"the retained {topic}", lambda: late.on(topic))
        assert late.on(topic) == [(topic, b"home", True)], late.on(topic)
    finally:
        late.stop()


PEOPLE_BRIDGE_YML = """
broker: {{host: 127.0.0.1, port: {port}, client_id: pb-ha-people}}
monitoring: {{http: "127.0.0.1:{http_port}"}}
people:
  - name: alice
    outputs: [alice-hook]
    presence: {{topic: homeassistant/person/alice/state, home: 'raw == "home"'}}
  - name: bob
    outputs: [bob-hook]
    presence: {{topic: homeassistant/person/bob/state, home: 'raw == "home"'}}
routes:
  - name: doorbell
    topic: people-test/doorbell
    input: text
    audience: home
    alert: {{title: Doorbell, body: "{{{{ raw }}}}"}}
outputs:
  - name: alice-hook
    webhook: {{url: "{alice_url}"}}
  - name: bob-hook
    webhook: {{url: "{bob_url}"}}
"""


def bridge_knows_people(binary):
    """True when this pushbridge's config knows the `people` key (`pushbridge help config people`)."""
    out = subprocess.run([binary, "help", "config", "people"], capture_output=True, text=True, timeout=60)
    return out.returncode == 0


def presence(binary, config_path, name):
    """The person's presence as `pushbridge people --json` says it (home, away, unknown), or None."""
    out = subprocess.run([binary, "people", "-c", config_path, "--json"], capture_output=True, text=True, timeout=30)
    if out.returncode != 0:
        return None
    data = json.loads(out.stdout)
    if isinstance(data, dict):
        data = data.get("people", data)
    if isinstance(data, dict):
        entry = data.get(name)
        return entry.get("presence") if isinstance(entry, dict) else entry
    return next((p.get("presence") for p in data if p.get("name") == name), None)


def test_presence_from_statestream_decides_the_audience(w):
    """End to end, once the bridge has `people:`: a second bridge with two people whose
    presence is their person entity's statestream topic (`raw == "home"`), each reached by a
    webhook of their own, and a route with `audience: home`. Alice home, Bob away: the alert
    reaches Alice's webhook only; they swap places in Home Assistant: the next reaches Bob's
    only. Skipped (returns "skipped") while the bridge does not know `people`."""
    if not bridge_knows_people(w.binary):
        return "skipped: this pushbridge has no people: key"
    alice_hook, bob_hook = harness.PushServer(), harness.PushServer()
    directory = os.path.join(w.directory, "people")
    os.makedirs(directory, exist_ok=True)
    config = PEOPLE_BRIDGE_YML.format(port=w.broker.port, http_port=harness.free_port(),
                                      alice_url=alice_hook.url, bob_url=bob_hook.url)
    try:
        # Each state changed once more, so statestream has published (retained) both.
        move(w, "alice", AWAY)
        move(w, "alice", HOME)
        move(w, "bob", HOME)
        move(w, "bob", AWAY)
        w.people_bridge = harness.Bridge(w.binary, directory, config)
        path = w.people_bridge.config_path
        wait_for("the bridge: alice home, bob away (from the retained statestream states)",
                 lambda: presence(w.binary, path, "alice") == "home" and presence(w.binary, path, "bob") == "away")
        w.recorder.publish("people-test/doorbell", "Ring 1")
        wait_for("Ring 1 at Alice's webhook", lambda: any(m.get("body") == "Ring 1" for m in alice_hook.received))
        move(w, "alice", AWAY)
        move(w, "bob", HOME)
        wait_for("the bridge: alice away, bob home (live statestream states)",
                 lambda: presence(w.binary, path, "alice") == "away" and presence(w.binary, path, "bob") == "home")
        w.recorder.publish("people-test/doorbell", "Ring 2")
        wait_for("Ring 2 at Bob's webhook", lambda: any(m.get("body") == "Ring 2" for m in bob_hook.received))
        # Ring 1 was delivered (to Alice) before Ring 2 was sent: had Bob been in its
        # audience, his webhook would hold it before Ring 2.
        assert [m.get("body") for m in bob_hook.received] == ["Ring 2"], bob_hook.received
        assert [m.get("body") for m in alice_hook.received] == ["Ring 1"], alice_hook.received
        # Both are on the display topic (it always gets the alert).
        shown = [json.loads(p).get("body") for _, p, _ in w.recorder.on("display/people-test/doorbell")]
        assert shown == ["Ring 1", "Ring 2"], shown
    finally:
        if w.people_bridge:
            w.people_bridge.stop()
            w.people_bridge = None
        alice_hook.stop()
        bob_hook.stop()
