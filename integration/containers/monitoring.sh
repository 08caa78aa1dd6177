#!/usr/bin/env bash
# Item 4: compose/compose.yml's `monitoring` setup as far as it can be built here: mosquitto,
# pushbridge and prometheus with podman-compose, on the image image.sh built and the Prometheus
# stand-in (Debian's prometheus package; stand-ins/make.sh). Checks, each bounded in time:
#   - Prometheus, in its own container, loads compose/prometheus/prometheus.yml and rules.yml as
#     mounted, and scrapes the bridge container by its compose service name (pushbridge:9464):
#     the target is up, and a doorbell ring published in the broker container shows in
#     pushbridge_messages_total{route="doorbell"} as Prometheus scraped it
#   - its API answers on the published loopback port
#
# Grafana is left out, and cannot be made here: the official image (grafana/grafana) is on Docker
# Hub, which these machines cannot reach; Debian packages no Grafana (it left Debian long before
# bookworm), Grafana's own apt repository is not reachable either, and no PyPI package ships its
# server. Its provisioning (datasource and dashboard) is checked against a real Prometheus by
# integration/monitoring/run.sh and integration/deploy/compose_config.sh instead.
# Usage: integration/containers/monitoring.sh      (exit 0 on success; leaves nothing running)
set -euo pipefail
# shellcheck source=integration/containers/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=integration/lib/ports.sh
. "$REPO_ROOT/integration/lib/ports.sh"
logs=${CONTAINERS_LOGS:-$(mktemp -d)}
remove_stack_now_and_at_exit

PUSHBRIDGE_BROKER_PORT=$(free_port) PUSHBRIDGE_HTTP_PORT=$(free_port) PROMETHEUS_PORT=$(free_port)
export PUSHBRIDGE_BROKER_PORT PUSHBRIDGE_HTTP_PORT PROMETHEUS_PORT
start=$SECONDS
timeout 300 podman-compose -p "$COMPOSE_PROJECT" -f "$COMPOSE_FILE" up -d mosquitto pushbridge prometheus > "$logs/monitoring-up.log" 2>&1 \
    || { tail -n 30 "$logs/monitoring-up.log" >&2; fail "podman-compose up of the monitoring services failed"; }
become_healthy "$(container mosquitto)" 60 || fail "the broker did not become healthy in 60 s"
become_healthy "$(container pushbridge)" 60 || fail "the bridge did not become healthy in 60 s"
prom="http://127.0.0.1:$PROMETHEUS_PORT"
wait_for 30 curl -sf --max-time 2 "$prom/-/ready" || fail "Prometheus is not ready on 127.0.0.1:$PROMETHEUS_PORT after 30 s"
log "broker, bridge and Prometheus up after $((SECONDS - start)) s"

# One ring, then wait for Prometheus (scrape_interval 15 s) to have scraped the counter.
broker_pub -q 1 -t home/front/doorbell -m '{"who":"Alice"}' || fail "mosquitto_pub inside the broker failed"
query() { curl -sf --max-time 5 --get "$prom/api/v1/query" --data-urlencode "query=$1"; }
scraped() { query 'sum(pushbridge_messages_total{route="doorbell"})' | python3 -c '
import json, sys
r = json.load(sys.stdin)["data"]["result"]
sys.exit(0 if r and float(r[0]["value"][1]) >= 1 else 1)'; }
wait_for 60 scraped || fail "Prometheus has not scraped pushbridge_messages_total{route=\"doorbell\"} >= 1 within 60 s"
curl -sf --max-time 5 "$prom/api/v1/targets" > "$logs/targets.json" || fail "no /api/v1/targets"
curl -sf --max-time 5 "$prom/api/v1/rules" > "$logs/rules.json" || fail "no /api/v1/rules"
python3 - "$logs/targets.json" "$logs/rules.json" <<'PY' || fail "Prometheus' targets or rules are not what compose/prometheus/ says"
import json, sys
targets = json.load(open(sys.argv[1]))["data"]["activeTargets"]
assert [(t["labels"]["job"], t["labels"]["instance"], t["health"]) for t in targets] == [("pushbridge", "pushbridge:9464", "up")], targets
names = {r["name"] for g in json.load(open(sys.argv[2]))["data"]["groups"] for r in g["rules"]}
assert {"PushbridgeRejectedMessages", "PushbridgeBrokerDisconnected"} <= names, names
print("target pushbridge:9464 up; rules:", ", ".join(sorted(names)))
PY
log "Prometheus scrapes pushbridge:9464 (target up, the ring counted) with the mounted rules"
podman stop -t 40 "$(container prometheus)" "$(container pushbridge)" "$(container mosquitto)" >/dev/null 2>>"$logs/podman.log"
echo "monitoring: passed (Grafana not built: no image or package for it can be had here)"
