#!/usr/bin/env bash
# Item 5: compose/compose.yml's `redis` setup (mosquitto, redis and pushbridge-redis-1..3, all three
# with bridge.redis.yml: `share: pushbridge` on every route, a `dedupe` filter on the doorbell, the
# filters' memory in Redis, one client id, stats topic and journal volume each) with
# podman-compose, on the image image.sh built and the redis:7.0 stand-in. Checks, each bounded:
#   - Redis and the three replicas become healthy; each replica's retained stats say it is
#     connected to the broker and carry "state":{"backend":"redis","connected":true,…}
#   - a burst: TOPICS doorbells, each report published COPIES times in a row (the broker hands
#     them round robin to the three replicas) -> exactly TOPICS display messages, one per topic
#   - Redis stopped (`podman stop`), rings sent meanwhile: every replica's /readyz answers 503
#     naming Redis, its stats say "connected":false (/metrics: pushbridge_state_up 0), and none
#     of those rings is displayed (no silent fall back to local memory), while passthrough
#     messages (no remembering filter) are; Redis started again: the rings come out, one per
#     topic, /readyz is 200 again and the stats say "connected":true
#   - more reports after that: one display message per topic; /metrics has pushbridge_state_up 1
#     and operations answered "ok"
#   - stopped cleanly, the replicas' stats add up: every message received by one replica (each
#     replica got some), one report delivered per topic, the rest suppressed by the dedupe filter
# Usage: integration/containers/redis.sh      (exit 0 on success; leaves nothing running)
set -euo pipefail
# shellcheck source=integration/containers/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=integration/lib/ports.sh
. "$REPO_ROOT/integration/lib/ports.sh"
logs=${CONTAINERS_LOGS:-$(mktemp -d)}
TOPICS=${TOPICS:-10}
COPIES=${COPIES:-5}
remove_stack_now_and_at_exit

PUSHBRIDGE_BROKER_PORT=$(free_port)
export PUSHBRIDGE_BROKER_PORT
broker=$(container mosquitto)
redis=$(container redis)
services=(pushbridge-redis-1 pushbridge-redis-2 pushbridge-redis-3)
start=$SECONDS
timeout 300 podman-compose -p "$COMPOSE_PROJECT" -f "$COMPOSE_FILE" up -d mosquitto redis "${services[@]}" > "$logs/redis-up.log" 2>&1 \
    || { tail -n 30 "$logs/redis-up.log" >&2; fail "podman-compose up of the redis services failed"; }
podman container exists "$(container pushbridge)" && fail "the single bridge was started too: it would display every message twice"
become_healthy "$broker" 60 || fail "$broker did not become healthy in 60 s"
become_healthy "$redis" 60 || fail "$redis did not become healthy in 60 s"
for i in 1 2 3; do
    become_healthy "$(container "pushbridge-redis-$i")" 60 || fail "replica $i did not become healthy in 60 s"
done

stats_of() { broker_sub -t "pushbridge/redis-replica-$1/stats" -C 1 -W 10; } # N: replica N's retained stats
state_says() { # N CONNECTED: replica N's stats say the broker is connected and Redis is (true) or is not (false)
    stats_of "$1" | python3 -c '
import json, sys
s = json.load(sys.stdin)
st = s.get("state") or {}
ok = s["connected"] is True and st.get("backend") == "redis" and st.get("connected") is (sys.argv[1] == "true")
sys.exit(0 if ok else 1)' "$2"
}
for i in 1 2 3; do
    status=$(broker_sub -t "pushbridge/redis-replica-$i/status" -C 1 -W 10) || fail "replica $i: no status"
    [ "$status" = online ] || fail "replica $i: status '$status', expected 'online'"
    wait_for 30 state_says "$i" true || { stats_of "$i" >&2 || true; fail "replica $i: its stats do not say broker connected and state redis connected within 30 s"; }
done
stats_of 1 | python3 -c 'import json, sys; print("replica 1 stats state:", json.dumps(json.load(sys.stdin)["state"]))'
log "Redis and three replicas healthy and online, each connected to the broker and to Redis ('state': backend redis, connected) after $((SECONDS - start)) s"

# GET PATH from replica N's own HTTP server (inside its container; bash's /dev/tcp, no curl in the
# image), with the bearer token of its secret when asked: prints the status line, then the body.
http_get() { # N PATH [token]
    podman exec "$(container "pushbridge-redis-$1")" bash -c '
        auth=""
        if [ "$2" = token ]; then auth="Authorization: Bearer $(head -n 1 /run/secrets/pushbridge_http_token)"; fi
        exec 3<>/dev/tcp/127.0.0.1/9464 || exit 1
        printf "GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n%b\r\n" "$1" "${auth:+$auth\r\n}" >&3
        timeout 5 cat <&3 | tr -d "\r" | sed "1p;1,/^\$/d"' _ "$2" "${3:-}"
}
readyz_is() { http_get "$1" /readyz > "$logs/readyz-$1.txt" && head -n 1 "$logs/readyz-$1.txt" | grep -q " $2 "; } # N STATUS
for i in 1 2 3; do
    readyz_is "$i" 200 || fail "replica $i: /readyz is not 200 with Redis up: $(tr '\n' ' ' < "$logs/readyz-$i.txt")"
done

run="r$$x$RANDOM" out="$logs/redis-display.out"
report() { # PHASE COPIES: one doorbell report per topic PHASE-0..PHASE-(TOPICS-1), published COPIES times in a row (QoS 1)
    local k
    for k in $(seq 0 $((TOPICS - 1))); do
        for _ in $(seq "$2"); do echo "{\"who\":\"guest-$1-$k\"}"; done \
            | podman exec -i "$broker" mosquitto_pub -h 127.0.0.1 -u pushbridge -P "$DEV_PASSWORD" -q 1 -t "home/$run-$1-$k/doorbell" -l \
            || fail "publish to home/$run-$1-$k/doorbell failed"
    done
}
check_one_per_topic() { # PHASE: the display lines of PHASE's topics are one per topic, each with its guest
    grep "^display/home/$run-$1-" "$out" > "$logs/redis-$1.out" || true
    python3 - "$logs/redis-$1.out" "$run" "$1" "$TOPICS" <<'PY'
import collections, json, sys
path, run, phase, topics = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
seen = collections.Counter()
for line in open(path):
    topic, payload = line.rstrip("\n").split(" ", 1)
    k = topic.split("/")[2].rsplit("-", 1)[1]
    body = json.loads(payload)["body"]
    if body != f"guest-{phase}-{k} is at the door":
        sys.exit(f"{topic}: body {body!r}")
    seen[topic] += 1
expected = {f"display/home/{run}-{phase}-{k}/doorbell" for k in range(topics)}
if set(seen) != expected or any(n != 1 for n in seen.values()):
    twice = sorted(t for t, n in seen.items() if n > 1)[:5]
    missing = sorted(expected - set(seen))[:5]
    sys.exit(f"{sum(seen.values())} display messages for {topics} topics; twice or more: {twice}; missing: {missing}")
PY
}
watch "$out" "display/#" 600 || fail "cannot subscribe inside $broker"
displayed() { watched "$out" "display/home/$run-$1-"; } # PHASE
at_least() { [ "$(displayed "$1")" -ge "$2" ]; }      # PHASE N

# A burst: each report COPIES times, spread over the replicas by the shared subscription.
start=$SECONDS
report burst "$COPIES"
wait_for 60 at_least burst "$TOPICS" || fail "only $(displayed burst) of $TOPICS reports displayed in 60 s"
sleep 3   # a second notification for a topic would arrive now
check_one_per_topic burst || fail "the burst's display messages are not one per topic"
log "$((TOPICS * COPIES)) reports ($TOPICS topics x $COPIES copies) over the three replicas -> $(displayed burst) display messages, one per topic, in $((SECONDS - start)) s"

# Redis away: the doorbell's messages wait in the replicas' journals; /readyz and the stats say why.
start=$SECONDS
podman stop -t 10 "$redis" >/dev/null 2>>"$logs/podman.log" || fail "podman stop $redis failed"
report outage 3
not_ready_all() {
    local i
    for i in 1 2 3; do readyz_is "$i" 503 && grep -q "state backend redis at .* is unreachable" "$logs/readyz-$i.txt" || return 1; done
}
wait_for 30 not_ready_all || fail "with Redis stopped, not every replica's /readyz answers 503 naming Redis within 30 s: $(cat "$logs"/readyz-*.txt | tr '\n' ' ')"
log "Redis stopped: every replica's /readyz: $(sed -n 1p "$logs/readyz-1.txt") '$(sed -n 2p "$logs/readyz-1.txt")'"
for i in 1 2 3; do
    wait_for 30 state_says "$i" false || fail "replica $i: its stats do not say \"connected\":false for Redis within 30 s"
done
stats_of 2 | python3 -c 'import json, sys; print("replica 2 stats state while Redis is down:", json.dumps(json.load(sys.stdin)["state"]))'
http_get 2 /metrics token > "$logs/metrics-2-down.txt" || fail "GET /metrics from replica 2 failed"
grep -q '^pushbridge_state_up 0$' "$logs/metrics-2-down.txt" || fail "replica 2's /metrics has no 'pushbridge_state_up 0' while Redis is down"
# The passthrough route has no remembering filter: it goes on without Redis, on every replica
# (three messages of one shared subscription: one each, in turn).
for k in 1 2 3; do
    broker_pub -q 1 -t "apns/$run-tv-$k" -m '{"aps":{"alert":{"title":"Movie night","body":"Starts in 5 minutes"}}}' \
        || fail "publish to apns/$run-tv-$k failed"
done
passed_through() { [ "$(watched "$out" "display/apns/$run-tv-")" -ge 3 ]; }
wait_for 30 passed_through || fail "with Redis down, only $(watched "$out" "display/apns/$run-tv-") of 3 passthrough messages displayed in 30 s"
[ "$(displayed outage)" = 0 ] || fail "$(displayed outage) rings displayed while Redis was down (decided without Redis)"
log "every replica's stats say \"connected\":false (replica 2's /metrics: pushbridge_state_up 0); 3 passthrough messages (no remembering filter) displayed meanwhile, none of the $((TOPICS * 3)) rings; Redis away for $((SECONDS - start)) s"
podman start "$redis" >/dev/null 2>>"$logs/podman.log" || fail "podman start $redis failed"
become_healthy "$redis" 30 || fail "$redis did not become healthy again in 30 s"
log "Redis healthy again"
start=$SECONDS
wait_for 60 at_least outage "$TOPICS" || fail "only $(displayed outage) of the $TOPICS rings sent while Redis was down displayed within 60 s of its return"
took=$((SECONDS - start))
sleep 3
check_one_per_topic outage || fail "the rings sent while Redis was down: not one display message per topic"
ready_all() { local i; for i in 1 2 3; do readyz_is "$i" 200 || return 1; done; }
wait_for 60 ready_all || fail "not every replica's /readyz is 200 again within 60 s of Redis's return"
ready=$((SECONDS - start))
for i in 1 2 3; do
    wait_for 30 state_says "$i" true || fail "replica $i: its stats do not say \"connected\":true again within 30 s"
done
for i in 1 2 3; do podman logs "$(container "pushbridge-redis-$i")" 2>&1 | grep "state: Redis" | sed "s/^/replica $i: /"; done
log "Redis back (healthy): the waiting rings displayed, one per topic, within $took s; /readyz 200 on every replica within $ready s, and \"connected\":true in every replica's stats within $((SECONDS - start)) s"

start=$SECONDS
report after "$COPIES"
wait_for 60 at_least after "$TOPICS" || fail "only $(displayed after) of $TOPICS reports displayed in 60 s after Redis's return"
sleep 3
check_one_per_topic after || fail "after Redis's return: not one display message per topic"
log "$((TOPICS * COPIES)) more reports -> $(displayed after) display messages, one per topic, in $((SECONDS - start)) s"

http_get 1 /metrics token > "$logs/metrics-1.txt" || fail "GET /metrics from replica 1 failed"
grep -q '^pushbridge_state_up 1$' "$logs/metrics-1.txt" \
    || { grep '^pushbridge_state' "$logs/metrics-1.txt" >&2 || true; fail "replica 1's /metrics has no 'pushbridge_state_up 1'"; }
grep -qE '^pushbridge_state_operations_total\{op="[^"]+",result="ok"\} [1-9]' "$logs/metrics-1.txt" \
    || { grep '^pushbridge_state' "$logs/metrics-1.txt" >&2 || true; fail "replica 1's /metrics counts no state operation answered ok"; }
log "replica 1's /metrics: $(grep -E '^pushbridge_state_(up|operations_total)' "$logs/metrics-1.txt" | tr '\n' ' ')"

for i in 1 2 3; do
    podman stop -t 40 "$(container "pushbridge-redis-$i")" >/dev/null 2>>"$logs/podman.log"
    stats_of "$i" > "$logs/stats-$i.json" || fail "replica $i: no retained stats"
done
python3 - "$TOPICS" "$COPIES" "$logs"/stats-{1,2,3}.json <<'PY' || fail "the replicas' stats do not add up to one bridge"
import json, sys
topics, copies = int(sys.argv[1]), int(sys.argv[2])
stats = [json.load(open(p)) for p in sys.argv[3:]]
totals = [s["totals"] for s in stats]
received = [t["received"] for t in totals]
delivered = [t["delivered"] for t in totals]
suppressed = [s["filters"].get("one-ring-per-guest", {}).get("suppressed", 0) for s in stats]
reports = topics * (copies + 3 + copies)
passthrough = 3
print("received per replica:", received, "delivered:", delivered, "suppressed by one-ring-per-guest:", suppressed)
assert all(r > 0 for r in received), "a replica received no report: the shared subscription did not spread them"
assert sum(received) == reports + passthrough, f"{sum(received)} received in all, {reports + passthrough} published"
assert sum(delivered) == 3 * topics + passthrough, f"{sum(delivered)} delivered in all, expected {3 * topics + passthrough}"
assert sum(suppressed) == reports - 3 * topics, f"{sum(suppressed)} suppressed in all, expected {reports - 3 * topics}"
PY
podman stop -t 10 "$broker" "$redis" >/dev/null 2>&1
wait "$WATCH_PID" 2>/dev/null || true
echo "redis: passed"
