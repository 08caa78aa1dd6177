#!/usr/bin/env bash
# Item 2: compose/compose.yml's default setup (services mosquitto and pushbridge) with podman-compose,
# on the image image.sh built. Checks, each bounded in time:
#   - both containers start and their healthchecks (compose's `healthcheck:`) become healthy
#   - the bridge's retained status is "online"; /metrics answers on the published loopback port
#   - a doorbell ring published inside the broker container comes out on display/# as the alert
#   - `podman stop` (SIGTERM) of the bridge exits 0 within the drain bound (extension.time_limit +
#     expire_grace = 31 s) and leaves the status "offline"
#   - rings published while the bridge is stopped (QoS 1) all come out, once each and in order,
#     after the container is removed and compose makes it again on the same volumes
# Usage: integration/containers/stack.sh      (exit 0 on success; leaves nothing running)
set -euo pipefail
# shellcheck source=integration/containers/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=integration/lib/ports.sh
. "$REPO_ROOT/integration/lib/ports.sh"
logs=${CONTAINERS_LOGS:-$(mktemp -d)}
remove_stack_now_and_at_exit

# The host side of the published ports: free loopback ports (1883/9464 may be taken here).
PUSHBRIDGE_BROKER_PORT=$(free_port) PUSHBRIDGE_HTTP_PORT=$(free_port)
export PUSHBRIDGE_BROKER_PORT PUSHBRIDGE_HTTP_PORT
broker=$(container mosquitto) bridge=$(container pushbridge)
start=$SECONDS
timeout 300 podman-compose -p "$COMPOSE_PROJECT" -f "$COMPOSE_FILE" up -d mosquitto pushbridge > "$logs/up.log" 2>&1 \
    || { tail -n 30 "$logs/up.log" >&2; fail "podman-compose up failed (log: $logs/up.log)"; }
become_healthy "$broker" 60 || fail "$broker did not become healthy in 60 s"
become_healthy "$bridge" 60 || fail "$bridge did not become healthy in 60 s"
log "up: $broker and $bridge healthy after $((SECONDS - start)) s"

status=$(broker_sub -t pushbridge/status -C 1 -W 10) || fail "no retained message on pushbridge/status"
[ "$status" = online ] || fail "pushbridge/status is '$status', expected 'online'"
# monitoring.http_auth: the compose secret pushbridge_http_token guards everything but the probes.
unauthorized=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://127.0.0.1:$PUSHBRIDGE_HTTP_PORT/metrics")
[ "$unauthorized" = 401 ] || fail "/metrics without the token answered $unauthorized, expected 401"
token=$(head -n 1 "$REPO_ROOT/compose/secrets/pushbridge_http_token.txt")
metrics=$(curl -sf --max-time 5 -H "Authorization: Bearer $token" "http://127.0.0.1:$PUSHBRIDGE_HTTP_PORT/metrics") \
    || fail "no /metrics on the published port 127.0.0.1:$PUSHBRIDGE_HTTP_PORT"
grep -q '^pushbridge_' <<< "$metrics" || fail "/metrics has no pushbridge_ series"
log "status online; /metrics on 127.0.0.1:$PUSHBRIDGE_HTTP_PORT (401 without the token)"

# The README's example ring ({"who":"Alice"} on home/front/doorbell), in a room of this run.
room="room$$x$RANDOM" out="$logs/display.out"
watch "$out" "display/home/$room/#" 240 || fail "cannot subscribe inside $broker"
display="display/home/$room/doorbell "
broker_pub -q 1 -t "home/$room/doorbell" -m '{"who":"Alice"}' || fail "mosquitto_pub inside $broker failed"
count_is() { [ "$(watched "$out" "$display")" -ge "$1" ]; }
wait_for 15 count_is 1 || fail "nothing on display/home/$room/doorbell within 15 s"
line=$(grep "^$display" "$out")
python3 - "$line" "$room" <<'PY' || fail "unexpected display message: $line"
import json, sys
topic, payload = sys.argv[1].split(" ", 1)
room = sys.argv[2]
m = json.loads(payload)
assert topic == f"display/home/{room}/doorbell", topic
assert m["source_topic"] == f"home/{room}/doorbell" and m["route"] == "doorbell", m
assert m["title"] == "Doorbell" and m["body"] == "Alice is at the door", m
assert m["subtitle"] == room and m["collapse_id"] == f"doorbell-{room}", m
PY
log "home/$room/doorbell -> display/home/$room/doorbell: Alice is at the door"

start=$SECONDS
podman stop -t 40 "$bridge" >/dev/null 2>>"$logs/podman.log" || fail "podman stop $bridge failed"
took=$((SECONDS - start))
code=$(podman inspect --format '{{.State.ExitCode}}' "$bridge")
[ "$code" = 0 ] || fail "$bridge exited $code after SIGTERM (expected 0)"
[ "$took" -lt 31 ] || fail "$bridge took $took s to stop (the drain bound is 31 s)"
status=$(broker_sub -t pushbridge/status -C 1 -W 10) || fail "no retained status after the stop"
[ "$status" = offline ] || fail "pushbridge/status is '$status' after podman stop, expected 'offline'"
log "podman stop: exit 0 in $took s, status offline"

# While the bridge is away its persistent session (session_expiry: 1d) keeps QoS 1 messages in
# the broker, whose store is on the mosquitto-data volume.
for k in 1 2 3 4 5; do
    broker_pub -q 1 -t "home/$room/doorbell" -m "{\"who\":\"guest-$k\"}" || fail "publish $k while stopped failed"
done
podman rm "$bridge" >/dev/null 2>>"$logs/podman.log"
volumes_before=$(podman volume ls --format '{{.Name}}' | grep "^${COMPOSE_PROJECT}_" | sort | tr '\n' ' ')
start=$SECONDS
timeout 120 podman-compose -p "$COMPOSE_PROJECT" -f "$COMPOSE_FILE" up -d pushbridge > "$logs/up-again.log" 2>&1 \
    || { tail -n 30 "$logs/up-again.log" >&2; fail "podman-compose up of the bridge again failed"; }
become_healthy "$bridge" 60 || fail "the new $bridge did not become healthy in 60 s"
[ "$(podman volume ls --format '{{.Name}}' | grep "^${COMPOSE_PROJECT}_" | sort | tr '\n' ' ')" = "$volumes_before" ] \
    || fail "compose made new volumes for the new container"
wait_for 30 count_is 6 || fail "only $(($(watched "$out" "$display") - 1)) of the 5 rings sent while stopped arrived in 30 s"
sleep 3   # a duplicate would arrive now
bodies=$(grep "^$display" "$out" | python3 -c 'import json,sys; print(" ".join(json.loads(l.split(" ",1)[1])["body"].split()[0] for l in sys.stdin))')
[ "$bodies" = "Alice guest-1 guest-2 guest-3 guest-4 guest-5" ] || fail "display messages '$bodies', expected Alice, then guest-1..guest-5 once each, in order"
log "new container on the same volumes after $((SECONDS - start)) s: the 5 rings sent while stopped, once each, in order"

start=$SECONDS
podman stop -t 40 "$bridge" "$broker" >/dev/null 2>>"$logs/podman.log"
wait "$WATCH_PID" 2>/dev/null || true
log "stopped in $((SECONDS - start)) s"
echo "stack: passed"
