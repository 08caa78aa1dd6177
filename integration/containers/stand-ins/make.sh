#!/usr/bin/env bash
# Makes the base images that the Dockerfile and compose/compose.yml name, locally, under their full
# names (no registry is reachable from the test machines), each only when it is missing or its
# recipe changed (a label holds the recipe's hash). They are a cache and stay after the tests:
#   docker.io/library/debian:bookworm-slim   debootstrap --variant=minbase bookworm, imported
#   docker.io/library/swift:<tag>            that base + this machine's Swift toolchain
#   docker.io/library/eclipse-mosquitto:<tag>  that base + Debian's mosquitto
#   docker.io/prom/prometheus:<tag>          that base + Debian's prometheus
#   docker.io/library/redis:<tag>            that base + Debian's redis-server
# Grafana has no stand-in: see integration/containers/monitoring.sh.
# Usage: integration/containers/stand-ins/make.sh  (prints what it made or found; exit 0 on success)
set -euo pipefail
# shellcheck source=integration/containers/lib.sh
. "$(dirname "$0")/../lib.sh"
HERE="$CONTAINERS_DIR/stand-ins"
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
# The version of the base recipe below: raise it when the debootstrap steps change, so every
# cached stand-in (each label holds a hash of its Containerfile and of this) is made again.
BASE_RECIPE=1
mkdir -p "$CONTAINERS_CACHE"

image_tag() { # NAME-PATTERN FILE: the first image reference in FILE whose repository is NAME-PATTERN
    grep -oE "(FROM|image:)[[:space:]]+$1:[^[:space:]]+" "$2" | head -n 1 | awk '{print $2}'
}
SWIFT_IMAGE=$(image_tag swift "$REPO_ROOT/Dockerfile")
DEBIAN_IMAGE=$(image_tag debian "$REPO_ROOT/Dockerfile")
MOSQUITTO_IMAGE=$(image_tag eclipse-mosquitto "$COMPOSE_FILE")
PROMETHEUS_IMAGE=$(image_tag prom/prometheus "$COMPOSE_FILE")
REDIS_IMAGE=$(image_tag redis "$COMPOSE_FILE")
[ "$DEBIAN_IMAGE" = debian:bookworm-slim ] || fail "the Dockerfile's runtime base is '$DEBIAN_IMAGE'; the stand-in is debian:bookworm-slim"
for name in SWIFT_IMAGE MOSQUITTO_IMAGE PROMETHEUS_IMAGE REDIS_IMAGE; do [ -n "${!name}" ] || fail "no $name named in the Dockerfile/compose.yml"; done

full_name() { # short name -> what Docker pulls
    case $1 in */*) echo "docker.io/$1" ;; *) echo "docker.io/library/$1" ;; esac
}
recipe_hash() { { cat "$@"; echo "$BASE_RECIPE"; } | sha256sum | cut -c1-16; }
current() { # IMAGE HASH: the image exists and was made from this recipe
    podman image exists "$1" && [ "$(podman image inspect --format '{{index .Labels "pushbridge.stand-in"}}' "$1")" = "$2" ]
}

# ---- debian:bookworm-slim --------------------------------------------------------------------
base=$(full_name "$DEBIAN_IMAGE")
base_hash=$(recipe_hash /dev/null)
if current "$base" "$base_hash"; then
    log "$base: cached"
else
    start=$SECONDS
    rootfs="$CONTAINERS_CACHE/bookworm-minbase"
    if [ ! -f "$rootfs/.complete" ]; then
        rm -rf "$rootfs.tmp"
        log "debootstrap --variant=minbase bookworm into $rootfs (a few minutes)"
        debootstrap --variant=minbase bookworm "$rootfs.tmp" "$MIRROR" > "$CONTAINERS_CACHE/debootstrap.log" 2>&1 \
            || { tail -n 20 "$CONTAINERS_CACHE/debootstrap.log" >&2; fail "debootstrap failed (log: $CONTAINERS_CACHE/debootstrap.log)"; }
        # As in the official slim image: the three suites in deb822 form, no package lists or
        # caches, no documentation, man pages or translations installed by later apt-get runs.
        rm -f "$rootfs.tmp/etc/apt/sources.list" "$rootfs.tmp/etc/hostname"
        cat > "$rootfs.tmp/etc/apt/sources.list.d/debian.sources" <<SOURCES
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
        printf '%s\n' 'path-exclude /usr/share/doc/*' 'path-include /usr/share/doc/*/copyright' \
            'path-exclude /usr/share/man/*' 'path-exclude /usr/share/info/*' \
            'path-exclude /usr/share/locale/*' 'path-include /usr/share/locale/locale.alias' \
            > "$rootfs.tmp/etc/dpkg/dpkg.cfg.d/docker"
        printf '%s\n' 'DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/*.bin || true"; };' \
            'APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/*.bin || true"; };' \
            'Dir::Cache::pkgcache ""; Dir::Cache::srcpkgcache "";' > "$rootfs.tmp/etc/apt/apt.conf.d/docker-clean"
        rm -rf "$rootfs.tmp"/var/lib/apt/lists/* "$rootfs.tmp"/var/cache/apt/* "$rootfs.tmp"/var/log/*.log \
            "$rootfs.tmp"/usr/share/doc/* "$rootfs.tmp"/usr/share/man/* "$rootfs.tmp"/usr/share/info/*
        : > "$rootfs.tmp/etc/resolv.conf"
        touch "$rootfs.tmp/.complete"
        rm -rf "$rootfs" && mv "$rootfs.tmp" "$rootfs"
    fi
    tar --numeric-owner --exclude=./.complete -C "$rootfs" -c . \
        | podman import --change 'CMD ["bash"]' --change "LABEL pushbridge.stand-in=$base_hash" - "$base" >/dev/null
    log "$base: made in $((SECONDS - start)) s"
fi

build_stand_in() { # IMAGE CONTAINERFILE [podman build options...]
    local image=$1 file=$2 hash start; shift 2
    hash=$(recipe_hash "$file")
    if current "$image" "$hash"; then log "$image: cached"; return; fi
    start=$SECONDS
    podman build --pull=never --layers=false --label "pushbridge.stand-in=$hash" -t "$image" -f "$file" "$@" "$HERE" \
        > "$CONTAINERS_CACHE/$(basename "$file" .Containerfile).log" 2>&1 \
        || { tail -n 30 "$CONTAINERS_CACHE/$(basename "$file" .Containerfile).log" >&2; fail "building $image failed"; }
    log "$image: made in $((SECONDS - start)) s"
}

# ---- swift:<tag> -----------------------------------------------------------------------------
swift=$(command -v "${SWIFT:-swift}") || fail "no swift on PATH: the Swift stand-in copies this machine's toolchain"
toolchain=$(dirname "$(dirname "$(dirname "$(readlink -f "$swift")")")")   # <toolchain>/usr/bin/swift-driver
tag_version=${SWIFT_IMAGE#swift:}; tag_version=${tag_version%%-*}
machine_version=$("$swift" --version 2>&1 | grep -oE 'Swift version [0-9.]+' | awk '{print $3}' || true)
case "$machine_version" in
    "$tag_version"|"$tag_version".*) ;;
    *) fail "the Dockerfile names $SWIFT_IMAGE but this machine's toolchain ($toolchain) is Swift $machine_version" ;;
esac
build_stand_in "$(full_name "$SWIFT_IMAGE")" "$HERE/swift.Containerfile" -v "$toolchain:/mnt/swift:ro"
build_stand_in "$(full_name "$MOSQUITTO_IMAGE")" "$HERE/mosquitto.Containerfile"
build_stand_in "$(full_name "$PROMETHEUS_IMAGE")" "$HERE/prometheus.Containerfile"
build_stand_in "$(full_name "$REDIS_IMAGE")" "$HERE/redis.Containerfile"
podman images --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep -E "^docker.io/(library/(debian|swift|eclipse-mosquitto|redis)|prom/prometheus):"
