# shellcheck shell=bash
# Helpers shared by integration/deploy/native_*.sh (sourced, not run). They run the compose services
# natively: mosquitto with compose/mosquitto.conf rewritten to a free loopback port and a temp
# directory, and pushbridge processes with the environment compose gives its containers.
# Every process started here is recorded in DEPLOY_PIDS and stopped by PID in deploy_cleanup.

DEPLOY_PIDS=()
# shellcheck source=integration/lib/processes.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/processes.sh"
# shellcheck source=integration/lib/ports.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/ports.sh"
DEPLOY_TMP=$(mktemp -d "${TMPDIR:-/tmp}/pushbridge-deploy.XXXXXX")
DEV_PASSWORD_FILE="$PWD/compose/secrets/mqtt_password.txt"
DEV_PASSWORD=$(head -n 1 "$DEV_PASSWORD_FILE")
# The compose secret pushbridge_http_token, where bridge.yml's monitoring.http_auth finds it
# (in a container: /run/secrets/pushbridge_http_token). Exported: every bridge and every
# `pushbridge check`/`health` run here reads bridge.yml with it.
DEV_HTTP_TOKEN_FILE="$PWD/compose/secrets/pushbridge_http_token.txt"
export PUSHBRIDGE_HTTP_TOKEN_FILE="$DEV_HTTP_TOKEN_FILE"

deploy_cleanup() {
    stop_pids "${DEPLOY_PIDS[@]}"
    rm -rf "$DEPLOY_TMP"
}
trap deploy_cleanup EXIT

fail() { # MESSAGE: print it, the logs, and exit 1
    echo "$(basename "$0"): FAIL: $*" >&2
    local log
    for log in "$DEPLOY_TMP"/*.log; do
        [ -f "$log" ] || continue
        echo "--- $(basename "$log") (last 30 lines)" >&2
        tail -n 30 "$log" >&2
    done
    exit 1
}

wait_for() { # SECONDS COMMAND...: run COMMAND every 0.1 s until it succeeds; 1 on timeout
    local deadline=$((SECONDS + $1)); shift
    until "$@" >/dev/null 2>&1; do
        [ "$SECONDS" -lt "$deadline" ] || return 1
        sleep 0.1
    done
}

alive() { kill -0 "$1" 2>/dev/null; }

# mosquitto_pub / mosquitto_sub against the test broker, logged in as compose's user.
mqtt_pub() { mosquitto_pub -h 127.0.0.1 -p "$BROKER_PORT" -u pushbridge -P "$DEV_PASSWORD" "$@"; }
mqtt_sub() { mosquitto_sub -h 127.0.0.1 -p "$BROKER_PORT" -u pushbridge -P "$DEV_PASSWORD" "$@"; }

subscribe_bg() { # OUTFILE ARGS...: mosquitto_sub -d in the background, line-buffered; sets SUB_PID
    # and returns once the broker acknowledged the subscription (so nothing published after is missed).
    local out=$1; shift
    stdbuf -oL mosquitto_sub -h 127.0.0.1 -p "$BROKER_PORT" -u pushbridge -P "$DEV_PASSWORD" -d "$@" > "$out" 2>&1 &
    SUB_PID=$!
    DEPLOY_PIDS+=("$SUB_PID")
    wait_for 5 grep -q SUBACK "$out" || fail "mosquitto_sub $* got no SUBACK"
}

# The compose healthcheck of the mosquitto service, against the native broker.
# shellcheck disable=SC2016  # '$SYS' is a literal topic, not a shell expansion
broker_healthy() { mqtt_sub -t '$SYS/broker/version' -C 1 -W 3; }

start_broker() { # sets BROKER_PORT; the broker runs compose/mosquitto.conf, rewritten
    BROKER_PORT=$(free_port)
    mkdir -p "$DEPLOY_TMP/broker-data"
    cp compose/passwd "$DEPLOY_TMP/passwd"
    chmod 600 "$DEPLOY_TMP/passwd"
    sed -e "s|^listener 1883\$|listener $BROKER_PORT 127.0.0.1|" \
        -e "s|/mosquitto/data/|$DEPLOY_TMP/broker-data/|" \
        -e "s|/mosquitto/config/passwd|$DEPLOY_TMP/passwd|" \
        compose/mosquitto.conf > "$DEPLOY_TMP/mosquitto.conf"
    grep -q "^listener $BROKER_PORT 127.0.0.1\$" "$DEPLOY_TMP/mosquitto.conf" \
        || fail "compose/mosquitto.conf has no 'listener 1883' line to rewrite"
    # Run as the current user: as root, mosquitto would switch to 'mosquitto', which cannot read the temp dir.
    echo "user $(id -un)" >> "$DEPLOY_TMP/mosquitto.conf"
    mosquitto -c "$DEPLOY_TMP/mosquitto.conf" > "$DEPLOY_TMP/mosquitto.log" 2>&1 &
    BROKER_PID=$!
    DEPLOY_PIDS+=("$BROKER_PID")
    wait_for 10 broker_healthy || fail "mosquitto did not become healthy on 127.0.0.1:$BROKER_PORT"
}

start_bridge() { # NAME CONFIG HTTP_PORT [VAR=VALUE]...: sets BRIDGE_PID; log in $DEPLOY_TMP/NAME.log
    local name=$1 config=$2 http_port=$3; shift 3
    env MQTT_HOST=127.0.0.1 MQTT_PORT="$BROKER_PORT" MQTT_USERNAME=pushbridge \
        MQTT_PASSWORD_FILE="$DEV_PASSWORD_FILE" PUSHBRIDGE_HTTP="127.0.0.1:$http_port" "$@" \
        "$PUSHBRIDGE" run -c "$config" > "$DEPLOY_TMP/$name.log" 2>&1 &
    BRIDGE_PID=$!
    DEPLOY_PIDS+=("$BRIDGE_PID")
}

bridge_ready() { # PID HTTP_PORT: the process lives and /readyz answers 200
    alive "$1" && "$PUSHBRIDGE" health --url "http://127.0.0.1:$2/readyz"
}

stop_bridge() { # PID: SIGTERM, then wait (bounded) for a clean exit 0
    local pid=$1 rc=0
    kill -TERM "$pid" 2>/dev/null || fail "bridge $pid was not running at SIGTERM"
    for _ in $(seq 200); do alive "$pid" || break; sleep 0.1; done
    alive "$pid" && fail "bridge $pid still runs 20 s after SIGTERM"
    wait "$pid" || rc=$?
    [ "$rc" = 0 ] || fail "bridge $pid exited $rc after SIGTERM (expected 0)"
}

require_binary() { # PATH (absolute, resolved before the script changed directory): sets PUSHBRIDGE
    [ -n "${1:-}" ] || { echo "usage: $0 PATH_TO_PUSHBRIDGE" >&2; exit 2; }
    if [ ! -f "$1" ] || [ ! -x "$1" ]; then echo "$0: '$1' is not an executable file" >&2; exit 2; fi
    PUSHBRIDGE=$1
    local tool
    for tool in mosquitto mosquitto_pub mosquitto_sub python3; do
        command -v "$tool" >/dev/null || { echo "$0: '$tool' is not installed" >&2; exit 2; }
    done
}
