#!/usr/bin/env bash
# make bench: the side-by-side benchmark (method and last figures in bench/README.md).
# Needs the release build (make release), mosquitto, libmosquitto-dev, a C compiler, python3.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .build/bench
cc -O2 -Wall -Wextra -o .build/bench/mqttbench bench/mqttbench.c -lmosquitto -lpthread
bin="$(scripts/swift-release.sh --show-bin-path)/pushbridge"
[ -x "$bin" ] || { echo "bench: $bin is missing; run 'make release' first" >&2; exit 1; }
# `bench/run.sh outputs`: the outputs rows (bench/outputs.py) instead of the main table.
if [ "${1:-}" = outputs ]; then exec python3 bench/outputs.py .build/bench/mqttbench "$bin"; fi
exec python3 bench/bench.py .build/bench/mqttbench "$bin"
