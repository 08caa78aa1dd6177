#!/usr/bin/env bash
# The Dockerfile's build stage sees only what .dockerignore lets through and what its COPY
# lines take. This assembles exactly that (the COPY sources of the build stage, from the repo)
# in a scratch folder and asks SwiftPM to load the manifest there: a target folder missing from
# the context fails here, not only in a real `docker build` (no engine runs on these machines).
set -euo pipefail
cd "$(dirname "$0")/../.."
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# COPY lines of the first stage (up to the second FROM), without --from copies.
mapfile -t sources < <(awk '/^FROM /{n++} n==1 && /^COPY / && !/--from/ {for (i = 2; i < NF; i++) print $i}' Dockerfile)
[ "${#sources[@]}" -gt 0 ] || { echo "no COPY lines found in the build stage" >&2; exit 1; }
for path in "${sources[@]}"; do
    # .dockerignore starts with '*' and lets through only its '!' lines.
    if ! grep -qxF "!$path" .dockerignore && ! grep -qxF "!${path%/}" .dockerignore; then
        echo "Dockerfile copies '$path', which .dockerignore keeps out of the context" >&2
        exit 1
    fi
    mkdir -p "$scratch/$(dirname "$path")"
    cp -r "$path" "$scratch/$path"
done
if ! out=$(cd "$scratch" && swift package describe 2>&1); then
    echo "SwiftPM cannot load the manifest from the image's build context:" >&2
    echo "$out" | head -5 >&2
    exit 1
fi
echo "build context: ${sources[*]}; the manifest loads"
