#!/usr/bin/env bash
# The `scale` profile of compose/compose.yml, run natively: one broker (compose/mosquitto.conf) and
# three `pushbridge run -c compose/bridge.scale.yml`, each with its own HOSTNAME (as compose's
# `hostname:` gives) and PUSHBRIDGE_PARTITION_INDEX (as compose.yml sets), so each has its own
# client id, status topic, journal and share of the topics. Checks, each bounded in time:
#   - all three become ready and report "online" on pushbridge/<hostname>/status
#   - N doorbell rings over 30 rooms give exactly N display messages, one per ring (no ring lost,
#     none twice), each room's in the order they rang
#   - SIGTERM stops each with exit 0 and "offline"; the stats each publishes on its clean stop
#     add up to N delivered and 2N partition_skipped, spread over more than one replica
# Usage: integration/deploy/native_scale.sh PATH_TO_PUSHBRIDGE      (exit 0 on success)
set -euo pipefail
BIN=${1:-}
[ -n "$BIN" ] && BIN=$(realpath -e "$BIN" 2>/dev/null || echo "$BIN")
cd "$(dirname "$0")/../.."
# shellcheck source=integration/deploy/lib.sh
. integration/deploy/lib.sh
require_binary "$BIN"
RINGS=${RINGS:-3000}
ROOMS=30

start_broker
echo "mosquitto (compose/mosquitto.conf) healthy on 127.0.0.1:$BROKER_PORT"

run_id="$$x$RANDOM"
declare -A PIDS HTTP
for i in 1 2 3; do
    host="replica-$i-$run_id"
    HTTP[$i]=$(free_port)
    mkdir -p "$DEPLOY_TMP/state-$i"
    start_bridge "replica-$i" compose/bridge.scale.yml "${HTTP[$i]}" \
        HOSTNAME="$host" PUSHBRIDGE_STATE_DIR="$DEPLOY_TMP/state-$i" PUSHBRIDGE_PARTITION_INDEX=$((i - 1))
    PIDS[$i]=$BRIDGE_PID
done
for i in 1 2 3; do
    wait_for 15 bridge_ready "${PIDS[$i]}" "${HTTP[$i]}" || fail "replica $i did not become ready (GET /readyz)"
    status=$(mqtt_sub -t "pushbridge/replica-$i-$run_id/status" -C 1 -W 5) || fail "replica $i: no status"
    [ "$status" = online ] || fail "replica $i: status '$status', expected 'online'"
done
echo "three replicas ready and online"

subscribe_bg "$DEPLOY_TMP/display.out" -v -q 1 -t 'display/#'
# ROOMS topics, RINGS/ROOMS rings each, one mosquitto_pub -l per topic (QoS 1).
for room in $(seq 0 $((ROOMS - 1))); do
    seq "$RINGS" | awk -v r="$room" -v n="$ROOMS" '$1 % n == r { printf "{\"who\":\"guest-%s\"}\n", $1 }' | mqtt_pub -q 1 -t "home/r$run_id-$room/doorbell" -l || fail "publish to room $room failed"
done
displayed() { grep -c '^display/' "$DEPLOY_TMP/display.out" || true; }
all_displayed() { [ "$(displayed)" -ge "$RINGS" ]; }
wait_for 60 all_displayed || fail "only $(displayed) of $RINGS rings reached display/# in 60 s"
sleep 2   # a duplicate would arrive now
kill "$SUB_PID"
python3 - "$DEPLOY_TMP/display.out" "$RINGS" "$run_id" <<'PY' || fail "the display messages are not one per ring"
import json, sys
path, rings, run_id = sys.argv[1], int(sys.argv[2]), sys.argv[3]
seen = []
for line in open(path):
    if line.startswith("display/"):
        topic, payload = line.rstrip("\n").split(" ", 1)
        seen.append((topic, json.loads(payload)["body"]))
rooms = 30
expected = sorted((f"display/home/r{run_id}-{k % rooms}/doorbell", f"guest-{k} is at the door") for k in range(1, rings + 1))
if sorted(seen) != expected:
    extra = [s for s in seen if seen.count(s) > 1]
    print(f"got {len(seen)} messages for {rings} rings; repeated: {sorted(set(extra))[:5]}", file=sys.stderr)
    sys.exit(1)
last, inversions = {}, 0
for topic, body in seen:
    k = int(body.split()[0].removeprefix("guest-"))
    if k < last.get(topic, 0):
        inversions += 1
    last[topic] = max(k, last.get(topic, 0))
if inversions:
    print(f"{inversions} ring(s) displayed after a later ring of the same room", file=sys.stderr)
    sys.exit(1)
PY
echo "$RINGS rings -> $RINGS display messages, each once, each room in order"

for i in 1 2 3; do
    stop_bridge "${PIDS[$i]}"
    status=$(mqtt_sub -t "pushbridge/replica-$i-$run_id/status" -C 1 -W 5) || fail "replica $i: no status after stop"
    [ "$status" = offline ] || fail "replica $i: status '$status' after SIGTERM, expected 'offline'"
    mqtt_sub -t "pushbridge/replica-$i-$run_id/stats" -C 1 -W 5 > "$DEPLOY_TMP/stats-$i.json" \
        || fail "replica $i: no retained stats after its clean stop"
done
python3 - "$RINGS" "$DEPLOY_TMP"/stats-{1,2,3}.json <<'PY' || fail "the replicas' stats do not add up"
import json, sys
rings = int(sys.argv[1])
totals = [json.load(open(p))["totals"] for p in sys.argv[2:]]
delivered = [t["delivered"] for t in totals]
skipped = [t["partition_skipped"] for t in totals]
print("delivered per replica:", delivered, "partition_skipped:", skipped)
assert sum(delivered) == rings, f"sum {sum(delivered)} != {rings}"
assert sum(skipped) == 2 * rings, f"partition_skipped {sum(skipped)} != {2 * rings}"
assert sum(1 for d in delivered if d > 0) >= 2, "the partitions did not spread the load"
PY
echo "native_scale: passed"
