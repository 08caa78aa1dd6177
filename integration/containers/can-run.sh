#!/usr/bin/env bash
# The pre-check of the container checks: can this host run a trivial container with podman, set up as
# run.sh sets it up (lib.sh: the folder's containers.conf, runc where crun refuses the cgroups)?
# In a few seconds, without a registry and without the stand-in base images (a fresh machine has none):
#   podman info                the storage driver and the runtime can be set up
#   podman import              a tiny image: this host's `true` and the libraries it loads (the storage
#                              driver writes a layer)
#   podman run --rm IMAGE /true  the runtime starts it (cgroups, mounts, the default network)
# then the image is removed by name. Every podman call is bounded: CAN_RUN_TIMEOUT seconds in all
# (default 120). PODMAN is the podman command, with global options if any (default `podman`), e.g.
# PODMAN='podman --storage-driver=bogus' shows the failure of a host whose storage cannot be set up.
# Usage: integration/containers/can-run.sh
#   exit 0: one line on stdout (podman's version, storage driver, runtime, seconds)
#   exit 1: ONE line on stderr, the reason (podman's own error where it gave one)
set -uo pipefail
# shellcheck source=integration/containers/lib.sh
. "$(dirname "$0")/lib.sh"
read -r -a podman <<< "${PODMAN:-podman}"
limit=${CAN_RUN_TIMEOUT:-120}
deadline=$((SECONDS + limit))
work=$(mktemp -d "${TMPDIR:-/tmp}/pushbridge-can-run.XXXXXX")
image=localhost/pushbridge-can-run:$$
imported=0
cleanup() {
    [ "$imported" = 0 ] || timeout -k 5 30 "${podman[@]}" rmi -f "$image" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

cannot() { # REASON: the one line, and exit 1
    echo "$*" >&2
    exit 1
}

# podman's error from a log: its last "Error: …" line (else the last line), on one line.
error_of() {
    local line
    line=$(grep -E '^(Error|error): ' "$1" | tail -n 1)
    [ -n "$line" ] || line=$(grep -v '^[[:space:]]*$' "$1" | tail -n 1)
    line=${line#Error: }; line=${line#error: }
    echo "${line:-no message}"
}

# STEP COMMAND...: run "${podman[@]}" COMMAND... within what is left of the time; on failure, exit
# with STEP and podman's error. Its stdout is left in $work/out.
podman_step() {
    local step=$1 left=$((deadline - SECONDS)) status; shift
    [ "$left" -gt 0 ] || cannot "podman did not get as far as '$step' within ${limit} s"
    timeout -k 5 "$left" "${podman[@]}" "$@" > "$work/out" 2> "$work/err"
    status=$?
    case $status in
        0) return 0 ;;
        124|137) cannot "'podman $step' did not finish within ${limit} s (podman hangs on this host)" ;;
        *) cannot "'podman $step' failed: $(error_of "$work/err")" ;;
    esac
}

command -v "${podman[0]}" >/dev/null 2>&1 \
    || cannot "podman is not installed ('${podman[0]}' is not on PATH; make container-test-deps installs it)"

podman_step info info --format '{{.Version.Version}} {{.Store.GraphDriverName}} {{with .Host.OCIRuntime}}{{.Name}}{{else}}unknown{{end}}'
read -r version driver runtime < "$work/out"

# The tiny root file system: `true` and the shared libraries it loads, at the same paths.
true_bin=$(type -P true) || cannot "no 'true' program on this host to put in a test image"
mkdir -p "$work/rootfs"
cp -L "$true_bin" "$work/rootfs/true" || cannot "cannot copy $true_bin into a test image"
for lib in $(ldd "$true_bin" 2>/dev/null | grep -oE '/[^ ]+'); do
    cp -L --parents "$lib" "$work/rootfs" || cannot "cannot copy $lib into a test image"
done
tar --numeric-owner -C "$work/rootfs" -cf "$work/rootfs.tar" . || cannot "cannot make the test image's archive"

podman_step import import "$work/rootfs.tar" "$image"
imported=1
podman_step run run --rm --pull=never "$image" /true
echo "containers: this host can run them (podman $version, storage driver $driver, runtime $runtime; $((SECONDS + limit - deadline)) s)"
