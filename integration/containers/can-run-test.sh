#!/usr/bin/env bash
# The checks of can-run.sh and of the make logic around it, with stand-ins for podman that fail as
# podman fails on hosts that cannot run containers (seconds; no container is started):
#   - no podman; a storage driver that cannot be set up; a runtime refusing the cgroups; a podman that
#     hangs (bounded by CAN_RUN_TIMEOUT): exit 1 and ONE line on stderr, podman's own error in it
#   - `make test-containers-if-possible` on such a host: the framed "CONTAINER TESTS SKIPPED" notice
#     with the reason, and success; with PUSHBRIDGE_REQUIRE_CONTAINERS=1 a failure with the reason;
#     `make test-containers` fails with the reason too (neither starts run.sh)
# Usage: integration/containers/can-run-test.sh   (exit 0 when every check passed)
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO_ROOT=$(cd "$HERE/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/pushbridge-can-run-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
export CONTAINERS_CACHE="$work/cache"   # lib.sh may write a runtime setting there
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok: $*"; }
not_ok() { failed=$((failed + 1)); echo "NOT OK: $*" >&2; }

# fake NAME BODY: a podman stand-in at $work/NAME whose behaviour is BODY (a case on "$1", the subcommand)
fake() {
    printf '#!/usr/bin/env bash\n%s\n' "$2" > "$work/$1"
    chmod +x "$work/$1"
}
fake storage 'echo "time=\"2026\" level=warning msg=\"overlay test mount failed\"" >&2
echo "Error: kernel does not support overlay fs: '"'"'overlay'"'"' is not supported over extfs at \"/var/lib/containers/storage/overlay\": backing file system is unsupported for this graph driver" >&2
exit 125'
fake cgroups 'case $1 in
  info) echo "4.3.1 overlay crun" ;;
  run) echo "Error: crun: invalid file system type on '"'"'/sys/fs/cgroup'"'"': OCI runtime error" >&2; exit 126 ;;
esac'
fake hangs 'case $1 in info) echo "4.3.1 overlay crun" ;; *) exec sleep 60 ;; esac'
fake works 'case $1 in info) echo "4.3.1 overlay crun" ;; esac'

# expect_cannot NAME PODMAN EXPECTED [ENV...]: can-run.sh exits 1 with one stderr line holding EXPECTED
expect_cannot() {
    local name=$1 podman=$2 expected=$3; shift 3
    env "$@" PODMAN="$podman" "$HERE/can-run.sh" > "$work/out" 2> "$work/err"
    local status=$? lines
    lines=$(wc -l < "$work/err")
    if [ "$status" = 1 ] && [ "$lines" = 1 ] && [ ! -s "$work/out" ] && grep -qF -- "$expected" "$work/err"; then
        ok "$name: $(cat "$work/err")"
    else
        not_ok "$name: exit $status, $lines stderr line(s), expected one with '$expected':"; cat "$work/out" "$work/err" >&2
    fi
}
expect_cannot "no podman" "$work/no-such-podman" "podman is not installed"
expect_cannot "storage driver" "$work/storage" \
    "'podman info' failed: kernel does not support overlay fs: 'overlay' is not supported over extfs"
expect_cannot "cgroups" "$work/cgroups" "'podman run' failed: crun: invalid file system type on '/sys/fs/cgroup'"
start=$SECONDS
expect_cannot "hangs" "$work/hangs" "'podman import' did not finish within 2 s" CAN_RUN_TIMEOUT=2
[ $((SECONDS - start)) -lt 30 ] && ok "hangs: stopped after $((SECONDS - start)) s" || not_ok "hangs: ran $((SECONDS - start)) s"
if PODMAN="$work/works" "$HERE/can-run.sh" > "$work/out" 2> "$work/err" && grep -q "can run them" "$work/out"; then
    ok "a podman that works: $(cat "$work/out")"
else
    not_ok "a podman that works was refused:"; cat "$work/out" "$work/err" >&2
fi

# The make logic, on a host whose runtime refuses the cgroups.
reason="this host cannot run containers: 'podman run' failed: crun: invalid file system type on '/sys/fs/cgroup'"
runmake() { # MAKE-ARGUMENTS...: make in the repository, its output in $work/out and $work/err
    env -u PUSHBRIDGE_REQUIRE_CONTAINERS make -s --no-print-directory -C "$REPO_ROOT" "$@" > "$work/out" 2> "$work/err"
}
runmake PODMAN="$work/cgroups" test-containers-if-possible
status=$?
if [ "$status" = 0 ] && grep -qF "# CONTAINER TESTS SKIPPED: $reason" "$work/err" && grep -q '^#####' "$work/err" \
    && ! grep -q '^containers:' "$work/out"; then
    ok "make test-containers-if-possible: skipped with the framed notice, exit 0"
else
    not_ok "make test-containers-if-possible: exit $status"; cat "$work/out" "$work/err" >&2
fi
runmake PODMAN="$work/cgroups" PUSHBRIDGE_REQUIRE_CONTAINERS=1 test-containers-if-possible
status=$?
if [ "$status" != 0 ] && grep -qF "$reason" "$work/err" && ! grep -q 'SKIPPED' "$work/err"; then
    ok "PUSHBRIDGE_REQUIRE_CONTAINERS=1 make test-containers-if-possible: fails with the reason (exit $status)"
else
    not_ok "PUSHBRIDGE_REQUIRE_CONTAINERS=1 make test-containers-if-possible: exit $status"; cat "$work/out" "$work/err" >&2
fi
runmake PODMAN="$work/cgroups" -o container-test-deps test-containers
status=$?
if [ "$status" != 0 ] && grep -qF "'podman run' failed: crun: invalid file system type" "$work/err" \
    && ! grep -q '^containers:' "$work/out"; then
    ok "make test-containers: fails with the reason before run.sh (exit $status)"
else
    not_ok "make test-containers: exit $status"; cat "$work/out" "$work/err" >&2
fi
echo "can-run: $passed passed, $failed failed"
[ "$failed" = 0 ]
