#!/usr/bin/env bash
# Item 3: compose/compose.yml's `scale` setup (mosquitto and pushbridge-replica-1..3, each with
# bridge.scale.yml: partition index 0..2 of 3, its own client id, status topic and journal
# volume) with podman-compose, on the image image.sh built. Checks, each bounded in time:
#   - the three replicas become healthy and report "online" on pushbridge/replica-N/status
#   - RINGS doorbell rings over 30 rooms give exactly RINGS display messages: none lost, none
#     twice, each room's in the order they rang
#   - replica 1 stopped with `podman stop`: exit 0 within the drain bound, "offline"; rings sent
#     meanwhile; its container removed and made again by compose: its journal (on its volume) is
#     the same file, and again every ring comes out once, each room in order
#   - stopped cleanly, every replica's stats show display messages delivered (the topics spread)
# Usage: integration/containers/scale.sh      (exit 0 on success; leaves nothing running)
set -euo pipefail
# shellcheck source=integration/containers/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=integration/lib/ports.sh
. "$REPO_ROOT/integration/lib/ports.sh"
logs=${CONTAINERS_LOGS:-$(mktemp -d)}
RINGS=${RINGS:-300}
ROOMS=30
remove_stack_now_and_at_exit

PUSHBRIDGE_BROKER_PORT=$(free_port)
export PUSHBRIDGE_BROKER_PORT
broker=$(container mosquitto)
replicas=(pushbridge-replica-1 pushbridge-replica-2 pushbridge-replica-3)
start=$SECONDS
timeout 300 podman-compose -p "$COMPOSE_PROJECT" -f "$COMPOSE_FILE" up -d mosquitto "${replicas[@]}" > "$logs/scale-up.log" 2>&1 \
    || { tail -n 30 "$logs/scale-up.log" >&2; fail "podman-compose up of the scale services failed"; }
podman container exists "$(container pushbridge)" && fail "the single bridge was started too: it would display every message twice"
become_healthy "$broker" 60 || fail "$broker did not become healthy in 60 s"
for i in 1 2 3; do
    become_healthy "$(container "pushbridge-replica-$i")" 60 || fail "replica $i did not become healthy in 60 s"
    status=$(broker_sub -t "pushbridge/replica-$i/status" -C 1 -W 10) || fail "replica $i: no status"
    [ "$status" = online ] || fail "replica $i: status '$status', expected 'online'"
done
log "three replicas healthy and online after $((SECONDS - start)) s"

run="r$$x$RANDOM" out="$logs/scale-display.out"
ring() { # FIRST LAST: rings FIRST..LAST, ring k in room k mod ROOMS, one mosquitto_pub -l per room (QoS 1)
    local room
    for room in $(seq 0 $((ROOMS - 1))); do
        seq "$1" "$2" | awk -v r="$room" -v n="$ROOMS" '$1 % n == r { printf "{\"who\":\"guest-%s\"}\n", $1 }' \
            | podman exec -i "$broker" mosquitto_pub -h 127.0.0.1 -u pushbridge -P "$DEV_PASSWORD" -q 1 -t "home/$run-$room/doorbell" -l \
            || fail "publish to room $room failed"
    done
}
check_once_in_order() { # FILE FIRST LAST: the display lines in FILE are rings FIRST..LAST, once each, each room in order
    python3 - "$1" "$2" "$3" "$run" "$ROOMS" <<'PY'
import json, sys
path, first, last, run, rooms = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
seen = []
for line in open(path):
    topic, payload = line.rstrip("\n").split(" ", 1)
    seen.append((topic, int(json.loads(payload)["body"].split()[0].removeprefix("guest-"))))
expected = sorted((f"display/home/{run}-{k % rooms}/doorbell", k) for k in range(first, last + 1))
if sorted(seen) != expected:
    dup = sorted({s for s in seen if seen.count(s) > 1})[:5]
    sys.exit(f"{len(seen)} display messages for {last - first + 1} rings; repeated: {dup}")
lastk = {}
for topic, k in seen:
    if k < lastk.get(topic, 0):
        sys.exit(f"{topic}: ring {k} displayed after ring {lastk[topic]}")
    lastk[topic] = k
PY
}
watch "$out" "display/home/#" 400 || fail "cannot subscribe inside $broker"
displayed() { watched "$out" "display/home/$run-"; }
at_least() { [ "$(displayed)" -ge "$1" ]; }
start=$SECONDS
ring 1 "$RINGS"
wait_for 60 at_least "$RINGS" || fail "only $(displayed) of $RINGS rings displayed in 60 s"
sleep 3   # a duplicate would arrive now
grep "^display/home/$run-" "$out" > "$logs/scale-1.out"
check_once_in_order "$logs/scale-1.out" 1 "$RINGS" || fail "the display messages are not one per ring, in order"
log "$RINGS rings over $ROOMS rooms -> $RINGS display messages in $((SECONDS - start)) s, each once, each room in order"

# Replica 1 away: its topics wait in its persistent session; its journal stays on its volume.
r1=$(container pushbridge-replica-1)
journal=$(podman volume inspect --format '{{.Mountpoint}}' "${COMPOSE_PROJECT}_pushbridge-replica-1-data")/journal/journal.sqlite
[ -f "$journal" ] || fail "replica 1 has no journal at $journal (its volume)"
inode=$(stat -c %i "$journal")
start=$SECONDS
podman stop -t 40 "$r1" >/dev/null 2>>"$logs/podman.log" || fail "podman stop $r1 failed"
took=$((SECONDS - start))
[ "$(podman inspect --format '{{.State.ExitCode}}' "$r1")" = 0 ] || fail "$r1 did not exit 0 after SIGTERM"
[ "$took" -lt 31 ] || fail "$r1 took $took s to stop (the drain bound is 31 s)"
status=$(broker_sub -t pushbridge/replica-1/status -C 1 -W 10) || fail "replica 1: no status after stop"
[ "$status" = offline ] || fail "replica 1: status '$status' after podman stop, expected 'offline'"
second=$((RINGS / 2))
ring $((RINGS + 1)) $((RINGS + second))
podman rm "$r1" >/dev/null 2>>"$logs/podman.log"
timeout 120 podman-compose -p "$COMPOSE_PROJECT" -f "$COMPOSE_FILE" up -d pushbridge-replica-1 > "$logs/scale-up-again.log" 2>&1 \
    || { tail -n 30 "$logs/scale-up-again.log" >&2; fail "podman-compose up of replica 1 again failed"; }
become_healthy "$r1" 60 || fail "the new replica 1 did not become healthy in 60 s"
[ "$(stat -c %i "$journal")" = "$inode" ] || fail "replica 1's journal is not the file it had before (volume not kept)"
wait_for 60 at_least $((RINGS + second)) || fail "only $(($(displayed) - RINGS)) of $second rings displayed in 60 s"
sleep 3
grep "^display/home/$run-" "$out" > "$logs/scale-2.out"
check_once_in_order "$logs/scale-2.out" 1 $((RINGS + second)) || fail "after the restart: not one per ring, in order"
log "replica 1 stopped (exit 0 in $took s, offline), $second rings meanwhile, made again on its volume (same journal): each once, in order"

for i in 1 2 3; do
    podman stop -t 40 "$(container "pushbridge-replica-$i")" >/dev/null 2>>"$logs/podman.log"
    broker_sub -t "pushbridge/replica-$i/stats" -C 1 -W 10 > "$logs/stats-$i.json" || fail "replica $i: no retained stats"
done
python3 - "$logs"/stats-{1,2,3}.json <<'PY' || fail "the replicas' stats do not show the topics spread over all three"
import json, sys
totals = [json.load(open(p))["totals"] for p in sys.argv[1:]]
print("delivered per replica:", [t["delivered"] for t in totals], "partition_skipped:", [t["partition_skipped"] for t in totals])
assert all(t["delivered"] > 0 for t in totals)
PY
podman stop -t 10 "$broker" >/dev/null 2>&1
wait "$WATCH_PID" 2>/dev/null || true
echo "scale: passed"
