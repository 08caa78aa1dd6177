#!/usr/bin/env bash
# The default compose deployment, run natively: mosquitto with compose/mosquitto.conf (on a free
# loopback port, persistence in a temp dir, the shipped password file) and `pushbridge run -c
# bridge.yml` with the environment compose gives the container. Checks, each bounded in time:
#   - the broker passes compose's healthcheck (mosquitto_sub on $SYS with the secret's password)
#   - the bridge logs in with MQTT_PASSWORD_FILE, becomes ready (/readyz) and healthy (`pushbridge
#     health`, the container's healthcheck, reading monitoring.http from bridge.yml)
#   - its retained status is "online"
#   - one doorbell ring comes out on display/# as the doorbell alert
#   - SIGTERM exits 0 and leaves the retained status "offline"
# Usage: integration/deploy/native_compose.sh PATH_TO_PUSHBRIDGE      (exit 0 on success)
set -euo pipefail
BIN=${1:-}
[ -n "$BIN" ] && BIN=$(realpath -e "$BIN" 2>/dev/null || echo "$BIN")
cd "$(dirname "$0")/../.."
# shellcheck source=integration/deploy/lib.sh
. integration/deploy/lib.sh
require_binary "$BIN"

start_broker
echo "mosquitto (compose/mosquitto.conf) healthy on 127.0.0.1:$BROKER_PORT"

HTTP_PORT=$(free_port)
CLIENT_ID="native-compose-$$-$RANDOM"
start_bridge bridge bridge.yml "$HTTP_PORT" PUSHBRIDGE_CLIENT_ID="$CLIENT_ID"
PID=$BRIDGE_PID
wait_for 15 bridge_ready "$PID" "$HTTP_PORT" || fail "the bridge did not become ready (GET /readyz)"
# Exactly what the container's healthcheck runs: `pushbridge health`, address from bridge.yml.
MQTT_HOST=127.0.0.1 MQTT_PORT="$BROKER_PORT" MQTT_USERNAME=pushbridge MQTT_PASSWORD_FILE="$DEV_PASSWORD_FILE" \
    PUSHBRIDGE_HTTP="127.0.0.1:$HTTP_PORT" "$PUSHBRIDGE" health -c bridge.yml \
    || fail "'pushbridge health -c bridge.yml' did not pass against the running bridge"
echo "pushbridge ready and healthy (client id $CLIENT_ID, http 127.0.0.1:$HTTP_PORT)"

status=$(mqtt_sub -t pushbridge/status -C 1 -W 5) || fail "no retained message on pushbridge/status"
[ "$status" = online ] || fail "pushbridge/status is '$status', expected 'online'"

room="room$$x$RANDOM"
display_topic="display/home/$room/doorbell"
subscribe_bg "$DEPLOY_TMP/display.out" -v -q 1 -t 'display/#' -C 1 -W 10
SUB=$SUB_PID
mqtt_pub -q 1 -t "home/$room/doorbell" -m '{"who":"Alice"}' || fail "mosquitto_pub to home/$room/doorbell failed"
rc=0
wait "$SUB" || rc=$?
line=$(grep "^$display_topic " "$DEPLOY_TMP/display.out" || true)
if [ "$rc" != 0 ] || [ -z "$line" ]; then fail "nothing on $display_topic within 10 s (mosquitto_sub exit $rc)"; fi
payload=${line#"$display_topic "}
python3 - "$payload" "$room" <<'PY' || fail "unexpected display message: $payload"
import json, sys
m = json.loads(sys.argv[1])
room = sys.argv[2]
assert m["source_topic"] == f"home/{room}/doorbell", m
assert m["route"] == "doorbell", m
assert m["title"] == "Doorbell" and m["body"] == "Alice is at the door", m
assert m["subtitle"] == room and m["collapse_id"] == f"doorbell-{room}", m
PY
echo "home/$room/doorbell -> $display_topic: Alice is at the door"

stop_bridge "$PID"
status=$(mqtt_sub -t pushbridge/status -C 1 -W 5) || fail "no retained message on pushbridge/status after stop"
[ "$status" = offline ] || fail "pushbridge/status is '$status' after SIGTERM, expected 'offline'"
echo "SIGTERM: exit 0, status offline"
echo "native_compose: passed"
