# syntax=docker/dockerfile:1
# pushbridge: a two-stage image. The builder compiles a release binary with the Swift standard
# library and Foundation linked in statically (scripts/swift-release.sh); the runtime stage is
# Debian 12 slim with only the C libraries the binary loads (libstdc++6 and libgcc-s1 are
# already part of debian:bookworm-slim), plus libhiredis0.14, which `state.redis` loads at run time.
#
#   docker build -t pushbridge .
#   docker run --rm -e MQTT_HOST=broker.example pushbridge            # runs /etc/pushbridge/bridge.yml
#   docker run --rm -v "$PWD/bridge.yml:/etc/pushbridge/bridge.yml:ro" pushbridge check

# ---- build -------------------------------------------------------------------------------------
# The official Swift image for Debian 12 (bookworm), same 6.x family as the development toolchain.
FROM swift:6.3-bookworm AS build

# DL3008 (pin apt versions) is ignored: Debian keeps only the newest version of a package in a
# suite, so an exact pin breaks the build at the next security update; the bookworm tag fixes the release.
# hadolint ignore=DL3008
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        libmosquitto-dev libyaml-dev libmicrohttpd-dev libsqlite3-dev libcurl4-openssl-dev libssl-dev libhiredis-dev \
        pkg-config \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /src
# The package has no outside dependencies, so the manifest and the sources are all it needs:
# Sources, the build-tool plugin (Plugins) and dashboard/, the page it compiles into the binary;
# SwiftPM also wants every folder the manifest names (the example extension and the tests,
# neither of which is built for --product pushbridge).
COPY Package.swift ./
COPY Sources ./Sources
COPY Plugins ./Plugins
COPY dashboard ./dashboard
COPY examples/swift-extension ./examples/swift-extension
COPY Tests ./Tests
# The release flags (static Swift runtime and Foundation, lld, packed relocations, the function
# order of scripts/pushbridge.order) live in
# this script, shared with `make release` and the benchmark.
COPY scripts/swift-release.sh scripts/pushbridge.order ./scripts/
RUN scripts/swift-release.sh --product pushbridge \
    && install -D -m 0755 "$(scripts/swift-release.sh --show-bin-path)/pushbridge" \
        /staging/usr/local/bin/pushbridge

# ---- runtime -----------------------------------------------------------------------------------
FROM debian:bookworm-slim

# DL3008 ignored for the same reason as above (Debian 12 serves only the newest build of a package).
# libhiredis0.14 is not linked: `state.redis` opens libhiredis.so.0.14 with dlopen when a config
# names it (compose.yml's `redis` profile), so ldd does not list it, but the image must hold it.
# hadolint ignore=DL3008
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        libmosquitto1 libyaml-0-2 libmicrohttpd12 libsqlite3-0 libcurl4 libssl3 libhiredis0.14 ca-certificates \
    && rm -rf /var/lib/apt/lists/*

# A fixed, unprivileged uid/gid so host-side volume permissions are predictable.
RUN groupadd --system --gid 10001 pushbridge \
    && useradd --system --uid 10001 --gid pushbridge --home-dir /var/lib/pushbridge \
        --no-create-home --shell /usr/sbin/nologin pushbridge \
    && install -d -o pushbridge -g pushbridge -m 0750 /var/lib/pushbridge \
    && install -d -m 0755 /etc/pushbridge

COPY --from=build /staging/usr/local/bin/pushbridge /usr/local/bin/pushbridge
# The repository's example configuration is the default; mount your own over it.
COPY bridge.yml /etc/pushbridge/bridge.yml

# PUSHBRIDGE_HTTP feeds `monitoring.http: ${PUSHBRIDGE_HTTP:-}` in bridge.yml: inside a container
# the metrics/health endpoint listens on every interface so the port can be published. Off
# loopback it needs a token (`monitoring.http_auth`): bridge.yml reads it from
# /run/secrets/pushbridge_http_token (a compose secret, or `-v token.txt:/run/secrets/…:ro`).
# Without that file the bridge refuses to start and says so.
ENV PUSHBRIDGE_CONFIG=/etc/pushbridge/bridge.yml \
    PUSHBRIDGE_HTTP=0.0.0.0:9464

# The journal (`journal.path`, at-least-once delivery) lives here; created above so that a new
# named volume starts out owned by the pushbridge user.
VOLUME ["/var/lib/pushbridge"]
WORKDIR /var/lib/pushbridge
# Numeric, so the runtime (and Kubernetes' runAsNonRoot) can tell it is not root without /etc/passwd.
USER 10001:10001

EXPOSE 9464
# `pushbridge health` GETs /healthz of monitoring.http (wildcard binds are probed on loopback).
HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 CMD ["pushbridge", "health"]
# SIGTERM drains in-flight messages (up to extension.time_limit + expire_grace) and exits 0.
STOPSIGNAL SIGTERM
ENTRYPOINT ["pushbridge"]
CMD ["run"]
