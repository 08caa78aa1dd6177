#!/usr/bin/env bash
# `pushbridge check` accepts the two files the compose deployment mounts, in the environment
# compose gives the containers: bridge.yml (service pushbridge) and compose/bridge.scale.yml
# (profile scale, HOSTNAME set per replica), and the scale file resolves to a per-replica client
# id and status topic and shared subscriptions.
# Usage: tests/deploy/check_configs.sh PATH_TO_PUSHBRIDGE      (exit 0 on success)
set -euo pipefail
BIN=${1:-}
[ -n "$BIN" ] && BIN=$(realpath -e "$BIN" 2>/dev/null || echo "$BIN")
cd "$(dirname "$0")/../.."
# shellcheck source=tests/deploy/lib.sh
. tests/deploy/lib.sh
require_binary "$BIN"

compose_env=(MQTT_HOST=mosquitto MQTT_PORT=1883 MQTT_USERNAME=pushbridge
             MQTT_PASSWORD_FILE="$DEV_PASSWORD_FILE" PUSHBRIDGE_HTTP=0.0.0.0:9464)
env "${compose_env[@]}" PUSHBRIDGE_CLIENT_ID=pushbridge "$PUSHBRIDGE" check -c bridge.yml > "$DEPLOY_TMP/single.txt" 2>&1 \
    || { cat "$DEPLOY_TMP/single.txt" >&2; fail "pushbridge check rejects bridge.yml in the compose environment"; }
grep -q '0.0.0.0:9464' "$DEPLOY_TMP/single.txt" || fail "bridge.yml: monitoring.http did not resolve to 0.0.0.0:9464"
env "${compose_env[@]}" HOSTNAME=replica-2 "$PUSHBRIDGE" check -c compose/bridge.scale.yml > "$DEPLOY_TMP/scale.txt" 2>&1 \
    || { cat "$DEPLOY_TMP/scale.txt" >&2; fail "pushbridge check rejects compose/bridge.scale.yml in the compose environment"; }
# shellcheck disable=SC2016  # '$share/…' are literal subscription filters
for want in 'client_id=pushbridge-replica-2' 'status_topic=pushbridge/replica-2/status' \
            '$share/pushbridge/home/+/doorbell' '$share/pushbridge/sensors/+/telemetry' '$share/pushbridge/apns/#' \
            'path=/var/lib/pushbridge/journal'; do
    grep -qF -- "$want" "$DEPLOY_TMP/scale.txt" || { cat "$DEPLOY_TMP/scale.txt" >&2; fail "bridge.scale.yml: '$want' not in the resolved config"; }
done
echo "check_configs: bridge.yml and compose/bridge.scale.yml pass 'pushbridge check'"
