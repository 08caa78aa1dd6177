#!/usr/bin/env bash
# `pushbridge check` accepts the two files the compose deployment mounts, in the environment
# compose gives the containers: bridge.yml (service pushbridge) and compose/bridge.scale.yml
# (profile scale, HOSTNAME and PUSHBRIDGE_PARTITION_INDEX set per replica), and the scale file
# resolves to a per-replica client id, status topic and partition, without shared subscriptions;
# without PUSHBRIDGE_PARTITION_INDEX it is refused, naming the variable; compose/bridge.redis.yml
# (profile redis, HOSTNAME per replica, REDIS_URL) resolves to a per-replica client id and stats
# topic, shared subscriptions on every route, a journal and the state in the compose service
# `redis`, without the warning a shared route behind a dedupe gets when its memory is local.
# Usage: integration/deploy/check_configs.sh PATH_TO_PUSHBRIDGE      (exit 0 on success)
set -euo pipefail
BIN=${1:-}
[ -n "$BIN" ] && BIN=$(realpath -e "$BIN" 2>/dev/null || echo "$BIN")
cd "$(dirname "$0")/../.."
# shellcheck source=integration/deploy/lib.sh
. integration/deploy/lib.sh
require_binary "$BIN"

compose_env=(MQTT_HOST=mosquitto MQTT_PORT=1883 MQTT_USERNAME=pushbridge
             MQTT_PASSWORD_FILE="$DEV_PASSWORD_FILE" PUSHBRIDGE_HTTP=0.0.0.0:9464)
env "${compose_env[@]}" PUSHBRIDGE_CLIENT_ID=pushbridge "$PUSHBRIDGE" check -c bridge.yml > "$DEPLOY_TMP/single.txt" 2>&1 \
    || { cat "$DEPLOY_TMP/single.txt" >&2; fail "pushbridge check rejects bridge.yml in the compose environment"; }
grep -q '0.0.0.0:9464' "$DEPLOY_TMP/single.txt" || fail "bridge.yml: monitoring.http did not resolve to 0.0.0.0:9464"
env "${compose_env[@]}" HOSTNAME=replica-2 PUSHBRIDGE_PARTITION_INDEX=1 "$PUSHBRIDGE" check -c compose/bridge.scale.yml > "$DEPLOY_TMP/scale.txt" 2>&1 \
    || { cat "$DEPLOY_TMP/scale.txt" >&2; fail "pushbridge check rejects compose/bridge.scale.yml in the compose environment"; }
for want in 'client_id=pushbridge-replica-2' 'status_topic=pushbridge/replica-2/status' \
            '1. doorbell: home/+/doorbell ' '2. telemetry: sensors/+/telemetry ' '3. passthrough: apns/# ' \
            'path=/var/lib/pushbridge/journal' 'partition: index=1 count=3'; do
    grep -qF -- "$want" "$DEPLOY_TMP/scale.txt" || { cat "$DEPLOY_TMP/scale.txt" >&2; fail "bridge.scale.yml: '$want' not in the resolved config"; }
done
! grep -q 'share/\|warning:' "$DEPLOY_TMP/scale.txt" || { cat "$DEPLOY_TMP/scale.txt" >&2; fail "bridge.scale.yml: a shared subscription or a warning"; }
if env "${compose_env[@]}" HOSTNAME=replica-2 "$PUSHBRIDGE" check -c compose/bridge.scale.yml > "$DEPLOY_TMP/noindex.txt" 2>&1; then
    fail "bridge.scale.yml passes 'check' without PUSHBRIDGE_PARTITION_INDEX"
fi
grep -q "environment variable 'PUSHBRIDGE_PARTITION_INDEX' is not set" "$DEPLOY_TMP/noindex.txt" \
    || { cat "$DEPLOY_TMP/noindex.txt" >&2; fail "bridge.scale.yml without PUSHBRIDGE_PARTITION_INDEX: the error does not name it"; }
env "${compose_env[@]}" HOSTNAME=redis-replica-2 REDIS_URL=redis://redis:6379/0 "$PUSHBRIDGE" check -c compose/bridge.redis.yml > "$DEPLOY_TMP/redis.txt" 2>&1 \
    || { cat "$DEPLOY_TMP/redis.txt" >&2; fail "pushbridge check rejects compose/bridge.redis.yml in the compose environment"; }
for want in 'client_id=pushbridge-redis-replica-2' 'stats_topic=pushbridge/redis-replica-2/stats' \
            '1. doorbell: $share/pushbridge/home/+/doorbell ' '2. telemetry: $share/pushbridge/sensors/+/telemetry ' \
            '3. passthrough: $share/pushbridge/apns/# ' 'one-ring-per-guest: dedupe ' \
            'path=/var/lib/pushbridge/journal' 'state: redis url=redis://redis:6379/' 'partition: off'; do
    grep -qF -- "$want" "$DEPLOY_TMP/redis.txt" || { cat "$DEPLOY_TMP/redis.txt" >&2; fail "bridge.redis.yml: '$want' not in the resolved config"; }
done
! grep -q 'warning:' "$DEPLOY_TMP/redis.txt" || { cat "$DEPLOY_TMP/redis.txt" >&2; fail "bridge.redis.yml: a warning"; }
echo "check_configs: bridge.yml, compose/bridge.scale.yml and compose/bridge.redis.yml pass 'pushbridge check'"
