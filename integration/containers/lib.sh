# shellcheck shell=bash
# Helpers shared by the integration/containers scripts (sourced, not run): podman with the private
# settings of this folder, where the stand-in base images are cached, bounded waits, and the names
# of everything a run makes, so that cleanup removes exactly those, by name.

CONTAINERS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$CONTAINERS_DIR/../.." && pwd)
# podman reads these instead of the machine's /etc/containers files (containers.conf: the default
# ulimits without which `podman run` fails here; registries.conf: short names mean docker.io).
export CONTAINERS_CONF="$CONTAINERS_DIR/containers.conf"
export CONTAINERS_REGISTRIES_CONF="$CONTAINERS_DIR/registries.conf"
# The stand-in base images' root file system and build logs: a cache kept between runs.
CONTAINERS_CACHE=${CONTAINERS_CACHE:-/var/cache/pushbridge-test/containers}
# On a machine whose cgroups are v1 with the v2 hierarchy mounted beside them holding a
# controller (hybrid mode; seen here: hugetlb in /sys/fs/cgroup/unified), crun refuses every
# container ("cgroups in hybrid mode not supported"); runc runs them. The same settings then
# go to podman with runc as the runtime, in a copy kept in the cache folder.
if [ -n "$(cat /sys/fs/cgroup/unified/cgroup.controllers 2>/dev/null)" ] && command -v runc >/dev/null 2>&1; then
    mkdir -p "$CONTAINERS_CACHE"
    { cat "$CONTAINERS_DIR/containers.conf"; printf '\n[engine]\nruntime = "runc"\n'; } > "$CONTAINERS_CACHE/containers-runc.conf"
    export CONTAINERS_CONF="$CONTAINERS_CACHE/containers-runc.conf"
fi
# The compose project of every stack these tests start, and so the prefix of its containers
# (<project>_<service>_1), volumes (<project>_<volume>) and network (<project>_default).
COMPOSE_PROJECT=${COMPOSE_PROJECT:-pushbridge-ctest}
COMPOSE_FILE="$REPO_ROOT/compose/compose.yml"
# The project image, as compose/compose.yml names it (`image: pushbridge:local`).
PROJECT_IMAGE=localhost/pushbridge:local
DEV_PASSWORD=$(head -n 1 "$REPO_ROOT/compose/secrets/mqtt_password.txt")

log() { echo "$(date +%H:%M:%S) $(basename "$0"): $*"; }

fail() { # MESSAGE: print it and exit 1 (the caller's EXIT trap prints logs and cleans up)
    echo "$(basename "$0"): FAIL: $*" >&2
    exit 1
}

wait_for() { # SECONDS COMMAND...: run COMMAND every 0.5 s until it succeeds; 1 on timeout
    local deadline=$((SECONDS + $1)); shift
    until "$@" >/dev/null 2>&1; do
        [ "$SECONDS" -lt "$deadline" ] || return 1
        sleep 0.5
    done
}

# podman-compose with this test's project name; the output goes to the run's log.
compose() { podman-compose -p "$COMPOSE_PROJECT" -f "$COMPOSE_FILE" "$@"; }

container() { echo "${COMPOSE_PROJECT}_$1_1"; } # SERVICE: its container's name

# MQTT clients run inside the broker container (nothing is published on the host's ports).
broker_pub() { podman exec "$(container mosquitto)" mosquitto_pub -h 127.0.0.1 -u pushbridge -P "$DEV_PASSWORD" "$@"; }
broker_sub() { podman exec "$(container mosquitto)" mosquitto_sub -h 127.0.0.1 -u pushbridge -P "$DEV_PASSWORD" "$@"; }

health_of() { podman inspect --format '{{.State.Health.Status}}' "$1" 2>/dev/null; } # CONTAINER
healthy() { [ "$(health_of "$1")" = healthy ]; }

# Removes, by name, what a stack of this project left: its containers, its volumes and its
# network (podman-compose 1.0.3's `down` leaves the network).
remove_stack() {
    local names
    names=$(podman ps -a --format '{{.Names}}' --filter "label=io.podman.compose.project=$COMPOSE_PROJECT")
    # shellcheck disable=SC2086  # one name per word
    [ -z "$names" ] || podman rm -f -v -t 5 $names >/dev/null 2>&1
    names=$(podman volume ls --format '{{.Name}}' | grep "^${COMPOSE_PROJECT}_" || true)
    # shellcheck disable=SC2086
    [ -z "$names" ] || podman volume rm -f $names >/dev/null
    if podman network exists "${COMPOSE_PROJECT}_default"; then podman network rm -f "${COMPOSE_PROJECT}_default" >/dev/null; fi
}

dump_stack_logs() { # the last lines of every container of the project (after a failure)
    local name
    for name in $(podman ps -a --format '{{.Names}}' --filter "label=io.podman.compose.project=$COMPOSE_PROJECT"); do
        echo "--- podman logs $name (last 40 lines)" >&2
        podman logs --tail 40 "$name" >&2 2>&1 || true
    done
}

# The healthcheck of CONTAINER, run until it reports healthy, for at most SECONDS. podman runs
# healthchecks on a timer only where systemd is the init (not in these test machines): here
# `podman healthcheck run` runs the container's own HEALTHCHECK/compose `healthcheck:` command.
become_healthy() { # CONTAINER SECONDS
    local deadline=$((SECONDS + $2))
    until podman healthcheck run "$1" >/dev/null 2>&1 && healthy "$1"; do
        [ "$SECONDS" -lt "$deadline" ] || return 1
        [ "$(podman inspect --format '{{.State.Running}}' "$1" 2>/dev/null)" = true ] || return 1
        sleep 1
    done
}

# A subscriber in the broker container that writes what it receives ("topic payload" lines) to
# a file for the rest of the check: `watch FILE FILTER SECONDS` starts it (for at most SECONDS)
# and returns once it is subscribed: it also subscribes to ctest/probe, which is published until
# the probe comes back (mosquitto_sub buffers its own "SUBACK" line, so that cannot be awaited).
# `watched FILE PREFIX` counts the lines whose topic starts with PREFIX. (A persistent
# `mosquitto_sub -c -C N` inbox is no good for counting: the broker redelivers some of the
# messages that client had taken when it stops at N, so they look like duplicates.)
watch() {
    : > "$1"  # made here: the background subscriber's own redirection may come after the first grep
    broker_sub -v -q 1 -t "$2" -t ctest/probe -W "$3" > "$1" 2>&1 &
    WATCH_PID=$!
    local deadline=$((SECONDS + 15))
    until grep -q '^ctest/probe ' "$1"; do
        [ "$SECONDS" -lt "$deadline" ] || return 1
        broker_pub -t ctest/probe -m up || true
        sleep 0.5
    done
}
watched() { grep -c "^$2" "$1" || true; }

# Removes what a previous run of the stack left, and removes the stack again when the script
# exits (its containers' logs first, when it failed).
finish_stack() {
    local rc=$?
    [ "$rc" = 0 ] || dump_stack_logs
    remove_stack
    exit "$rc"
}
remove_stack_now_and_at_exit() {
    trap finish_stack EXIT
    remove_stack
}
