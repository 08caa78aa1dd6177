#!/usr/bin/env bash
# Prometheus and Grafana for real: `promtool check rules` on compose/prometheus/rules.yml, then a
# real Prometheus (Debian's `prometheus`, 127.0.0.1, private data directory, free port, 1 s scrape
# interval) scraping a running bridge on a real mosquitto, and EVERY PromQL expression of the
# Grafana dashboard (compose/grafana/dashboards/pushbridge.json) and of the rules evaluated through
# Prometheus' HTTP query API against the scraped data: each must return series. The expressions
# are read from the files, so a new panel or rule is checked without touching this script.
#
# usage: integration/monitoring/run.sh PATH_TO_PUSHBRIDGE    prints "monitoring: N passed, 0 failed"
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
BIN=$(realpath -e "${1:?usage: $0 PATH_TO_PUSHBRIDGE}") || exit 2
for tool in prometheus promtool mosquitto mosquitto_pub python3; do
    command -v "$tool" >/dev/null || { echo "monitoring: '$tool' is not installed (make test-deps)" >&2; exit 2; }
done
# Debian's python3 has yaml (python3-yaml, a docker-compose dependency); a pyenv one may not.
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

TMP=$(mktemp -d "${TMPDIR:-/tmp}/pushbridge-prom.XXXXXX")
PIDS=()
# shellcheck source=integration/lib/processes.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/processes.sh"
# shellcheck source=integration/lib/ports.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/ports.sh"
cleanup() {
    stop_pids "${PIDS[@]}"
    rm -rf "$TMP"
}
trap cleanup EXIT

fail() {
    echo "monitoring: FAIL: $*" >&2
    for log in "$TMP"/*.log; do [ -f "$log" ] && { echo "--- $(basename "$log")" >&2; tail -n 20 "$log" >&2; }; done
    exit 1
}

wait_for() { # SECONDS COMMAND...
    local deadline=$((SECONDS + $1)); shift
    until "$@" >/dev/null 2>&1; do
        [ "$SECONDS" -lt "$deadline" ] || return 1
        sleep 0.2
    done
}

# 1. The rules file is valid.
promtool check rules compose/prometheus/rules.yml || fail "promtool check rules"
# The compose scrape config too, with the rules path and the token's secret pointing at the repo's
# files (promtool checks that the credentials file exists).
sed -e "s|/etc/prometheus/rules.yml|$PWD/compose/prometheus/rules.yml|" \
    -e "s|/run/secrets/pushbridge_http_token|$PWD/compose/secrets/pushbridge_http_token.txt|" \
    compose/prometheus/prometheus.yml > "$TMP/compose-prometheus.yml"
promtool check config "$TMP/compose-prometheus.yml" || fail "promtool check config (compose/prometheus/prometheus.yml)"

# 2. A broker and a bridge whose traffic gives every family a series.
BROKER_PORT=$(free_port)
printf 'listener %s 127.0.0.1\nallow_anonymous true\n' "$BROKER_PORT" > "$TMP/mosquitto.conf"
[ "$(id -u)" = 0 ] && echo "user root" >> "$TMP/mosquitto.conf"
start_broker() {
    mosquitto -c "$TMP/mosquitto.conf" > "$TMP/mosquitto.log" 2>&1 &
    BROKER_PID=$!
    PIDS+=("$BROKER_PID")
    wait_for 10 bash -c "exec 3<>/dev/tcp/127.0.0.1/$BROKER_PORT" || fail "mosquitto did not start"
}
start_broker
HTTP_PORT=$(free_port)
# monitoring.http_auth as in compose: Prometheus sends the token from its credentials_file.
openssl rand -hex 32 > "$TMP/http_token"
cat > "$TMP/bridge.yml" <<EOF
broker: {host: 127.0.0.1, port: $BROKER_PORT, client_id: prom-test-$$, reconnect: {min: 100ms, max: 500ms}}
entitlements: [com.apple.developer.usernotifications.filtering]
routes:
  - {name: doorbell, topic: "home/+/doorbell", alert: {title: "Doorbell", body: "{{ payload.who }}"}}
  - {name: passthrough, topic: "apns/#", input: apns}
extension:
  filters:
    - {name: drop-test-rings, suppress: "payload.test == true"}
    - {name: shout, set: {title: "{{ content.title | upper }}"}, when: "payload.loud == true"}
monitoring:
  http: "127.0.0.1:$HTTP_PORT"
  http_auth: {token_file: "$TMP/http_token"}
  interval: 1s
EOF
"$BIN" run -c "$TMP/bridge.yml" > "$TMP/bridge.log" 2>&1 &
BRIDGE_PID=$!
PIDS+=("$BRIDGE_PID")
wait_for 20 "$BIN" health --url "http://127.0.0.1:$HTTP_PORT/readyz" || fail "the bridge did not become ready"
metrics_status() { "$PY" - "$HTTP_PORT" "$@" <<'PY'
import sys, urllib.request, urllib.error
req = urllib.request.Request(f"http://127.0.0.1:{sys.argv[1]}/metrics")
if len(sys.argv) > 2: req.add_header("Authorization", "Bearer " + open(sys.argv[2]).readline().strip())
try: print(urllib.request.urlopen(req, timeout=10).status)
except urllib.error.HTTPError as e: print(e.code)
PY
}
[ "$(metrics_status)" = 401 ] || fail "/metrics without the token did not answer 401"
[ "$(metrics_status "$TMP/http_token")" = 200 ] || fail "/metrics with the token did not answer 200"

# 3. Prometheus: the compose scrape job and rules, aimed at the bridge, scraping every second.
PROM_PORT=$(free_port)
cat > "$TMP/prometheus.yml" <<EOF
global: {scrape_interval: 1s, evaluation_interval: 1s}
rule_files: ["$PWD/compose/prometheus/rules.yml"]
scrape_configs:
  - job_name: pushbridge
    authorization: {type: Bearer, credentials_file: "$TMP/http_token"}
    static_configs: [{targets: ['127.0.0.1:$HTTP_PORT']}]
EOF
promtool check config "$TMP/prometheus.yml" >/dev/null || fail "promtool check config (test config)"
prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/data" \
    --web.listen-address="127.0.0.1:$PROM_PORT" --log.level=warn > "$TMP/prometheus.log" 2>&1 &
PIDS+=("$!")
query() { # EXPR: prints the JSON answer of an instant query
    "$PY" - "$PROM_PORT" "$1" <<'PY'
import json, sys, urllib.parse, urllib.request
port, expr = sys.argv[1], sys.argv[2]
url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
print(urllib.request.urlopen(url, timeout=10).read().decode())
PY
}
has_series() { query "$1" | "$PY" -c 'import json,sys; d=json.load(sys.stdin); sys.exit(0 if d["status"]=="success" and d["data"]["result"] else 1)'; }
wait_for 60 has_series 'up{job="pushbridge"} == 1' || fail "Prometheus never scraped the bridge"

pub() { mosquitto_pub -h 127.0.0.1 -p "$BROKER_PORT" -V mqttv5 "$@"; }
# A route's series appear with its first message. Prometheus sees a counter's increase only
# from a scraped value to a later one, so the passthrough route is seen at 0 rejections first.
pub -t apns/phone -m '{"aps":{"alert":"hello"}}'
wait_for 60 has_series 'pushbridge_messages_total{route="passthrough",outcome="rejected"} == 0' \
    || fail "the passthrough route's series were never scraped"
for i in 1 2 3; do pub -t home/front/doorbell -m "{\"who\":\"n$i\"}"; done
pub -t home/front/doorbell -m '{"who":"x","loud":true}'
pub -t home/front/doorbell -m '{"who":"x","test":true}'
pub -t apns/phone -m 'not an apns body'
# Traffic over several scrapes, so rate() and increase() have two samples in their windows.
for i in $(seq 10); do pub -t home/garden/doorbell -m "{\"who\":\"g$i\"}"; sleep 0.3; done
wait_for 60 has_series 'pushbridge_received_total >= 17' || fail "the scraped received count never reached 17"
wait_for 60 has_series 'count_over_time(pushbridge_received_total[1m]) >= 5' || fail "fewer than 5 scrapes"

# 4. The broker goes away: the "broker disconnected" alert's expression must then hold.
kill "$BROKER_PID"; wait "$BROKER_PID" 2>/dev/null
wait_for 60 has_series 'pushbridge_broker_connected == 0' || fail "the scraped pushbridge_broker_connected never became 0"

# 5. Every expression of the dashboard and the rules, as Grafana and Prometheus would run them.
"$PY" - "$PROM_PORT" compose/grafana/dashboards/pushbridge.json compose/prometheus/rules.yml <<'PY'
import json, sys, urllib.parse, urllib.request, yaml
port, dashboard, rules = sys.argv[1:4]

def walk(node):  # every target of every panel, rows and nested panels included
    if isinstance(node, dict):
        if isinstance(node.get("expr"), str) and node.get("expr").strip():
            yield node["expr"]
        for v in node.values():
            yield from walk(v)
    elif isinstance(node, list):
        for v in node:
            yield from walk(v)

exprs = [("dashboard", e) for e in walk(json.load(open(dashboard))["panels"])]
for group in yaml.safe_load(open(rules))["groups"]:
    for rule in group["rules"]:
        exprs.append(("rule " + rule.get("alert", rule.get("record", "?")), rule["expr"]))
# Grafana's built-in interval variables, as it would substitute them for a 1 s scrape.
variables = {"$__rate_interval": "1m", "$__interval": "15s", "$__range": "1h", "${__rate_interval}": "1m"}
passed = failed = 0
for where, expr in exprs:
    q = expr
    for k, v in variables.items():
        q = q.replace(k, v)
    if "$" in q:
        print(f"FAIL {where}: an unknown variable in {expr!r}"); failed += 1; continue
    url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": q})
    try:
        answer = json.load(urllib.request.urlopen(url, timeout=10))
    except Exception as e:
        print(f"FAIL {where}: {q!r}: {e}"); failed += 1; continue
    result = answer.get("data", {}).get("result", [])
    if answer.get("status") == "success" and result:
        passed += 1
        print(f"ok   {where}: {q} -> {len(result)} series")
    else:
        failed += 1
        print(f"FAIL {where}: {q} returned no series: {answer}")
print(f"expressions: {passed} passed, {failed} failed (of {len(exprs)})")
if len(exprs) < 10:
    print("FAIL: fewer expressions than expected were found in the files"); failed += 1
sys.exit(1 if failed else 0)
PY
[ $? = 0 ] || fail "a PromQL expression returned no series"
# The rules were loaded by the server itself (not only by promtool).
query 'ALERTS' >/dev/null
"$PY" - "$PROM_PORT" <<'PY' || fail "Prometheus did not load both alert rules"
import json, sys, urllib.request
d = json.load(urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/api/v1/rules", timeout=10))
names = {r["name"] for g in d["data"]["groups"] for r in g["rules"]}
need = {"PushbridgeRejectedMessages", "PushbridgeBrokerDisconnected"}
print("rules loaded:", sorted(names))
sys.exit(0 if need <= names else 1)
PY
echo "monitoring: 1 passed, 0 failed"
