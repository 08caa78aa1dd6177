#!/usr/bin/env bash
# Item 1: the project's own Dockerfile, built with podman as it is (no test copy of it), then
# checked from the outside and from inside the image:
#   - it builds (timed), and a second build reuses every layer (timed; the same image id)
#   - it runs as the unprivileged uid 10001, by its numeric USER and in the running container
#   - its final stage holds no compiler, linker, Swift toolchain, SwiftPM build tree or sources
#   - the binary starts, every library it links is there and so is libhiredis.so.0.14 (which
#     state.redis loads with dlopen), and it accepts the image's default configuration (`pushbridge check`)
#   - the image's size is printed (and the binary's)
# Needs the stand-in base images (stand-ins/make.sh). Leaves the image for the compose checks;
# run.sh removes it at the end.
# Usage: integration/containers/image.sh      (exit 0 on success)
set -euo pipefail
# shellcheck source=integration/containers/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$REPO_ROOT"

build() { # the build as a user runs it, but never pulling (no registry here)
    podman build --pull=never -t "$PROJECT_IMAGE" -f Dockerfile . > "$1" 2>&1 \
        || { tail -n 40 "$1" >&2; fail "podman build of the Dockerfile failed (log: $1)"; }
}
logs=${CONTAINERS_LOGS:-$(mktemp -d)}
start=$SECONDS
build "$logs/build-1.log"
first=$((SECONDS - start))
first_id=$(podman image inspect --format '{{.Id}}' "$PROJECT_IMAGE")
start=$SECONDS
build "$logs/build-2.log"
second=$((SECONDS - start))
[ "$(podman image inspect --format '{{.Id}}' "$PROJECT_IMAGE")" = "$first_id" ] \
    || fail "a second build with nothing changed made a different image (a layer is not cached)"
if grep -q 'Using cache' "$logs/build-1.log"; then kind="with some layers cached"; else kind="cold"; fi
log "podman build: ${first} s ($kind), again with nothing changed: ${second} s (every layer cached)"

user=$(podman image inspect --format '{{.Config.User}}' "$PROJECT_IMAGE")
[ "$user" = 10001:10001 ] || fail "the image's USER is '$user', expected 10001:10001"
ids=$(podman run --rm --entrypoint /usr/bin/id "$PROJECT_IMAGE") || fail "cannot run id in the image"
case "$ids" in "uid=10001(pushbridge) gid=10001(pushbridge)"*) ;; *) fail "the container runs as $ids" ;; esac
log "runs as $ids"

# Nothing of the build stage: no compiler, linker or toolchain on PATH or in the usual places, no
# Swift runtime libraries (the binary links them statically), no sources or SwiftPM build tree.
found=$(podman run --rm --entrypoint /bin/sh "$PROJECT_IMAGE" -c '
    for tool in swift swiftc swift-build swift-frontend clang clang++ gcc g++ cc c++ ld ld.lld ld.gold as make; do
        command -v "$tool" || true
    done
    for path in /usr/lib/swift /usr/lib/swift_static /usr/bin/swift-driver /usr/include/c++ /src /staging /root/.cache /var/lib/pushbridge/.build; do
        [ -e "$path" ] && echo "$path"
    done
    find / -xdev \( -name "*.swiftmodule" -o -name "*.swiftinterface" -o -name ".build" -o -name "Package.swift" -o -name "*.o" \) -print 2>/dev/null | head -n 5
    true') || fail "cannot look inside the image"
[ -z "$found" ] || fail "the final stage holds build tools or build output: $(echo "$found" | tr '\n' ' ')"
log "no compiler, linker, toolchain, sources or build tree in the final stage"

version=$(podman run --rm "$PROJECT_IMAGE" --version) || fail "'pushbridge --version' fails in the image"
missing=$(podman run --rm --entrypoint /bin/sh "$PROJECT_IMAGE" -c 'ldd /usr/local/bin/pushbridge | grep "not found" || true')
[ -z "$missing" ] || fail "libraries missing in the image: $missing"
# state.redis opens hiredis with dlopen (ldd does not list it): the loader's cache must know it.
podman run --rm --entrypoint /bin/sh "$PROJECT_IMAGE" -c 'ldconfig -p | grep -q "libhiredis.so.0.14 "' \
    || fail "libhiredis.so.0.14 (package libhiredis0.14, loaded by state.redis) is not in the image"
# The default configuration serves HTTP on 0.0.0.0:9464, so it needs monitoring.http_auth's token
# at /run/secrets/pushbridge_http_token (compose's secret): refused without it, accepted with it.
if podman run --rm "$PROJECT_IMAGE" check > "$logs/check-no-token.log" 2>&1; then
    fail "'pushbridge check' of the image's default configuration passes without the HTTP token"
fi
grep -q "cannot read 'token_file' '/run/secrets/pushbridge_http_token'" "$logs/check-no-token.log" \
    || { cat "$logs/check-no-token.log" >&2; fail "without the HTTP token, 'check' does not name token_file"; }
podman run --rm -v "$REPO_ROOT/compose/secrets/pushbridge_http_token.txt:/run/secrets/pushbridge_http_token:ro" \
    "$PROJECT_IMAGE" check > "$logs/check.log" 2>&1 || { cat "$logs/check.log" >&2; fail "'pushbridge check' of the image's default configuration fails"; }
log "pushbridge $version starts; every library it links is in the image, and libhiredis.so.0.14 for state.redis; 'check' accepts /etc/pushbridge/bridge.yml with the HTTP token (and refuses it without)"

size=$(podman image inspect --format '{{.Size}}' "$PROJECT_IMAGE")
bin=$(podman run --rm --entrypoint /usr/bin/stat "$PROJECT_IMAGE" -c %s /usr/local/bin/pushbridge)
log "image $PROJECT_IMAGE: $((size / 1000000)) MB ($size bytes); the binary: $((bin / 1000000)) MB"
echo "image: passed"
