#!/usr/bin/env bash
# Builds the libFuzzer targets with swiftc and runs each one for a while.
#
#   fuzz/run.sh [-t SECONDS] [TARGET...]
#
# TARGET is fuzz_json, fuzz_expression, fuzz_apns or fuzz_config (default: all four).
# Each target is compiled straight from the source files it needs (listed below) with
# `-sanitize=fuzzer,address`, so SwiftPM and Package.swift are not involved. Work files
# live in .build/fuzz/: binaries, the growing corpus per target (seeded from fuzz/seeds/
# and from the repository's own YAML files), and crash artifacts. The script exits 1
# when a target found a crash, leak, timeout or out-of-memory input (see its log).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)
SECONDS_PER_TARGET=60
while getopts "t:" opt; do
  case $opt in
    t) SECONDS_PER_TARGET=$OPTARG ;;
    *) echo "usage: fuzz/run.sh [-t SECONDS] [TARGET...]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
TARGETS=("$@")
[ ${#TARGETS[@]} -eq 0 ] && TARGETS=(fuzz_json fuzz_expression fuzz_apns fuzz_config)

SRC=Sources/PushBridge
JSON_SOURCES=("$SRC"/Support/JSONValue.swift "$SRC"/Support/JSONParser.swift
              "$SRC"/Support/JSONStringParser.swift "$SRC"/Support/JSONSerializer.swift)
LANGUAGE_SOURCES=("$SRC"/Language/*.swift)
NOTIFICATION_SOURCES=("$SRC"/Notifications/*.swift)
CONFIG_SOURCES=("$SRC"/Config/*.swift "$SRC"/Broker/TopicFilter.swift)

sources_for() {
  case $1 in
    fuzz_json) echo "${JSON_SOURCES[@]}" ;;
    fuzz_expression) echo "${JSON_SOURCES[@]} ${LANGUAGE_SOURCES[@]}" ;;
    fuzz_apns) echo "${JSON_SOURCES[@]} ${NOTIFICATION_SOURCES[@]}" ;;
    fuzz_config) echo "${JSON_SOURCES[@]} ${LANGUAGE_SOURCES[@]} ${NOTIFICATION_SOURCES[@]} ${CONFIG_SOURCES[@]}" ;;
    *) echo "unknown target '$1' (fuzz_json, fuzz_expression, fuzz_apns, fuzz_config)" >&2; return 1 ;;
  esac
}

OUT=.build/fuzz
mkdir -p "$OUT"
status=0
for target in "${TARGETS[@]}"; do
  read -r -a sources <<<"$(sources_for "$target")"
  extra=()
  if [ "$target" = fuzz_config ]; then
    # Config/YAMLParser.swift imports the CYaml system module (libyaml).
    extra=(-I Sources/CYaml $(pkg-config --cflags-only-I yaml-0.1 | sed 's/-I/-Xcc -I/g') -lyaml)
  fi
  echo "== building $target (${#sources[@]} source files)"
  swiftc -swift-version 6 -O -g -parse-as-library -sanitize=fuzzer,address -use-ld=lld \
    -module-name PushBridgeFuzz "${extra[@]}" "${sources[@]}" "fuzz/$target.swift" -o "$OUT/$target"

  corpus="$OUT/corpus/$target"
  artifacts="$OUT/artifacts/$target"
  mkdir -p "$corpus" "$artifacts"
  seeds=(fuzz/seeds/"${target#fuzz_}")
  if [ "$target" = fuzz_config ]; then
    for f in bridge.yml examples/*/bridge.yml; do cp "$f" "$corpus/seed-$(echo "$f" | tr / _)"; done
  fi
  dict=()
  [ -f "fuzz/dict/${target#fuzz_}.dict" ] && dict=(-dict="fuzz/dict/${target#fuzz_}.dict")
  echo "== running $target for ${SECONDS_PER_TARGET}s (log: $OUT/$target.log)"
  if "$OUT/$target" "$corpus" "${seeds[@]}" "${dict[@]}" \
      -max_total_time="$SECONDS_PER_TARGET" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="$artifacts/" -print_final_stats=1 \
      >"$OUT/$target.log" 2>&1; then
    echo "   $(grep -E '^(#[0-9]+|Done)' "$OUT/$target.log" | tail -1)"
  else
    status=1
    echo "   $target FAILED; last lines of $OUT/$target.log:"
    tail -30 "$OUT/$target.log" | sed 's/^/   /'
    ls "$artifacts"
  fi
done
exit $status
