#!/usr/bin/env bash
# Every deployment check. Without an argument: the ones that need no pushbridge binary (hadolint,
# compose config, the image build context). With PATH_TO_PUSHBRIDGE: also check_configs, health, native_compose, native_scale.
# Prints "N passed, N failed" and exits non-zero when any failed.
set -uo pipefail
cd "$(dirname "$0")" || exit 2
BIN=${1:-}
[ -n "$BIN" ] && BIN=$(realpath -e "$BIN" 2>/dev/null || echo "$BIN")
checks=(lint.sh compose_config.sh build_context.sh)
[ -n "$BIN" ] && checks+=(check_configs.sh health.sh native_compose.sh native_scale.sh)
passed=0 failed=0
for check in "${checks[@]}"; do
    echo "== $check"
    if ./"$check" ${BIN:+"$BIN"}; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "== $check FAILED"; fi
done
echo "deploy: $passed passed, $failed failed"
[ "$failed" = 0 ]
