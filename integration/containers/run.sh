#!/usr/bin/env bash
# `make test-containers`: the image and the compose stack built and run for real, with podman.
#   stand-ins/make.sh   the base images the Dockerfile and compose.yml name, made locally (cached)
#   image.sh            item 1: podman build of the Dockerfile; non-root; no build tools; size
#   stack.sh            item 2: the default setup (broker + bridge): health, a ring, stop, restart
#   scale.sh            item 3: the `scale` setup: three partitioned replicas
#   redis.sh            item 5: the `redis` setup: three replicas behind one shared subscription,
#                       the dedupe filter's memory in Redis; Redis stopped and started again
#   monitoring.sh       item 4: the `monitoring` setup without Grafana: Prometheus scraping the bridge
# Afterwards everything the run made is removed by name: the compose project's containers, volumes
# and network (stack.sh, scale.sh, redis.sh and monitoring.sh each remove theirs as they finish), the project
# image and the intermediate images of its build. The stand-in base images stay (a cache, ~4.5 GB,
# made again only when missing or changed: stand-ins/make.sh). KEEP_IMAGE=1 keeps the project image
# too, to iterate on the compose checks without rebuilding it.
# Prints "containers: N passed, N failed" and exits non-zero when any failed.
# Usage: integration/containers/run.sh [SETUP.sh...]   (default: every setup above; naming some, e.g.
# `run.sh redis.sh`, runs the stand-ins, the image and those setups only)
set -uo pipefail
# shellcheck source=integration/containers/lib.sh
. "$(dirname "$0")/lib.sh"
setups=("$@")
[ "${#setups[@]}" -gt 0 ] || setups=(stack.sh scale.sh redis.sh monitoring.sh)
for setup in "${setups[@]}"; do
    case $setup in stack.sh|scale.sh|redis.sh|monitoring.sh) ;; *) echo "$0: no setup '$setup' (stack.sh, scale.sh, redis.sh, monitoring.sh)" >&2; exit 2 ;; esac
done
for tool in podman podman-compose debootstrap curl python3; do
    command -v "$tool" >/dev/null || { echo "$0: '$tool' is not installed (make test-deps installs it)" >&2; exit 2; }
done
total_start=$SECONDS
CONTAINERS_LOGS=$(mktemp -d "${TMPDIR:-/tmp}/pushbridge-containers.XXXXXX")
export CONTAINERS_LOGS
images_before="$CONTAINERS_LOGS/images-before"

cleanup() {
    remove_stack
    if [ "${KEEP_IMAGE:-0}" != 1 ] && [ -f "$images_before" ]; then
        # The project image by name, then whatever image appeared since the stand-ins were made
        # (the build stage and the cached intermediate layers of `podman build`), by id.
        podman image exists "$PROJECT_IMAGE" && podman rmi -f "$PROJECT_IMAGE" >/dev/null
        local id
        for id in $(comm -13 "$images_before" <(podman images -a -q --no-trunc | sort -u)); do
            podman rmi -f "$id" >/dev/null 2>&1 || true
        done
    fi
    rm -rf "$CONTAINERS_LOGS"
}
trap cleanup EXIT
remove_stack

passed=0 failed=0
step() { # SCRIPT: run it, count it
    echo "== $1"
    local start=$SECONDS
    if "$CONTAINERS_DIR/$1"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "== $1 FAILED"; fi
    echo "== $1: $((SECONDS - start)) s"
}
step stand-ins/make.sh
if [ "$failed" = 0 ]; then
    podman images -a -q --no-trunc | sort -u > "$images_before"
    step image.sh
fi
if [ "$failed" = 0 ]; then
    for setup in "${setups[@]}"; do step "$setup"; done
fi
echo "containers: $passed passed, $failed failed ($((SECONDS - total_start)) s)"
[ "$failed" = 0 ]
