#!/usr/bin/env bash
# make bench: the side-by-side benchmark (method and last figures in bench/README.md).
# Needs the release build (make release), mosquitto, libmosquitto-dev, libmicrohttpd-dev, a C
# compiler, python3.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .build/bench
cc -O2 -Wall -Wextra -o .build/bench/mqttbench bench/mqttbench.c -lmosquitto -lpthread
cc -O2 -Wall -Wextra -o .build/bench/httpsink bench/httpsink.c -lmicrohttpd -lpthread
bin="$(scripts/swift-release.sh --show-bin-path)/pushbridge"
[ -x "$bin" ] || { echo "bench: $bin is missing; run 'make release' first" >&2; exit 1; }
# `bench/run.sh outputs`: only the outputs rows (bench/outputs.py).
if [ "${1:-}" = outputs ]; then exec python3 bench/outputs.py .build/bench/mqttbench "$bin"; fi
[ "${BENCH_CASES:-}" = outputs ] || python3 bench/bench.py .build/bench/mqttbench "$bin"
# The outputs rows follow the main table, unless BENCH_CASES leaves the case `outputs` out.
case ",${BENCH_CASES:-outputs}," in
  *,outputs,*) python3 bench/outputs.py .build/bench/mqttbench "$bin" ;;
esac
