#!/usr/bin/env bash
# make sanitize: the bridge and its tests built with AddressSanitizer and, separately,
# ThreadSanitizer, then the suites that run the real thing (a real mosquitto, the real
# pushbridge binary, the journal on disk, the HTTP endpoint) under each.
#
#   sanitize/run.sh [address|thread ...]      (default: address, then thread)
#
# Each sanitizer has its own build path, .build/sanitize/<kind>/build, so the normal .build is
# untouched. Every process a test starts (the pushbridge binary too) inherits the sanitizer's
# options and writes its reports to .build/sanitize/<kind>/reports/; a report, or a failing
# test, fails the run. Known reports that are not ours are suppressed in
# sanitize/<kind>.supp (each entry says why). Under a sanitizer the socket buffers of
# Sources/CSocketBuffers are compiled out (the tests of their effect skip).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SWIFT=${SWIFT:-swift}
KINDS=("$@")
[ ${#KINDS[@]} -eq 0 ] && KINDS=(address thread)

# The suites of the folders that exercise the running bridge, found by name in their files
# (a suite added there is included without touching this script).
FOLDERS=(Integration Faults Journal MonitoringIntegration Broker)
suites=$(cd Tests/PushBridgeTests && grep -h -oE '^(@Suite[^ ]* )?(final |public )*(struct|class|enum|extension) [A-Za-z0-9_]+' \
           $(printf '%s/*.swift ' "${FOLDERS[@]}") | awk '{print $NF}' | sort -u | paste -sd'|')
FILTER="^PushBridgeTests\\.($suites)/"

status=0
for kind in "${KINDS[@]}"; do
  case $kind in
    address|thread) ;;
    *) echo "unknown sanitizer '$kind' (address, thread)" >&2; exit 2 ;;
  esac
  dir=.build/sanitize/$kind
  reports=$ROOT/$dir/reports
  rm -rf "$reports"; mkdir -p "$reports"
  echo "== building the bridge and the tests with --sanitize=$kind (build path $dir/build)"
  if ! "$SWIFT" build --build-tests --build-path "$dir/build" --sanitize="$kind" >"$dir/build.log" 2>&1; then
    grep -E "error:" "$dir/build.log" | head -20; tail -5 "$dir/build.log"; exit 1
  fi
  grep -E "warning:" "$dir/build.log" | grep -v "^/usr/bin/ld" | sort -u || true
  export ASAN_OPTIONS="log_path=$reports/asan:detect_leaks=1:abort_on_error=0:strict_string_checks=0"
  export LSAN_OPTIONS="suppressions=$ROOT/sanitize/leak.supp:print_suppressions=0"
  export TSAN_OPTIONS="log_path=$reports/tsan:suppressions=$ROOT/sanitize/thread.supp:halt_on_error=0:second_deadlock_stack=1:print_suppressions=0"
  skip=()
  # Under ThreadSanitizer (5-15x slower) the 10 MB payload of this test takes longer on the
  # network thread than the test broker's keepalive allows: the broker drops the connection and
  # redelivers the unacknowledged QoS 1 messages (17 received, not 10). A timing artifact of
  # the build, not a race (TSan reports nothing); it passes under ASan and alone under TSan.
  [ "$kind" = thread ] && skip=(--skip 'PushBridgeTests\.GarbageTests/garbage\(')
  echo "== running the real-broker suites under $kind (log: $dir/test.log, reports: $dir/reports/)"
  start=$(date +%s)
  if "$SWIFT" test --skip-build --build-path "$dir/build" --sanitize="$kind" --filter "$FILTER" "${skip[@]}" >"$dir/test.log" 2>&1; then
    result=passed
  else
    result=FAILED; status=1
  fi
  unset ASAN_OPTIONS LSAN_OPTIONS TSAN_OPTIONS
  echo "   tests $result in $(( $(date +%s) - start ))s: $(grep -E '^(✔|✘|􁁛|􀢄).*Test run with' "$dir/test.log" | tail -1)"
  if [ "$result" != passed ]; then
    { grep -E "(✘|􀢄).*(failed|recorded an issue)" "$dir/test.log" || tail -5 "$dir/test.log"; } | head -20 | sed 's/^/   /'
  fi
  found=$(ls "$reports" || true)
  if [ -n "$found" ]; then
    status=1
    echo "   $kind sanitizer reports (in $dir/reports/):"
    for f in $found; do echo "   --- $f"; head -60 "$reports/$f" | sed 's/^/   /'; done
  else
    echo "   no $kind sanitizer reports"
  fi
done
exit $status
