#!/usr/bin/env bash
# The Home Assistant tests (docs/operations.md, README.md): installs HA when needed (install.sh, cached
# outside the repo), then runs test_homeassistant.py against the pushbridge binary that
# `swift build` made. Exits non-zero when a check fails.
#   PUSHBRIDGE_BIN  the binary (default: the debug build's)
set -euo pipefail
cd "$(dirname "$0")/../.."
export HA_VERSION=${HA_VERSION:-2025.4.4}
export HA_VENV=${HA_VENV:-/var/cache/pushbridge-test/ha-$HA_VERSION}
integration/homeassistant/install.sh
export PUSHBRIDGE_BIN=${PUSHBRIDGE_BIN:-$(${SWIFT:-swift} build --show-bin-path)/pushbridge}
[ -x "$PUSHBRIDGE_BIN" ] || { echo "integration/homeassistant/run.sh: no pushbridge binary at $PUSHBRIDGE_BIN (run swift build)" >&2; exit 1; }
command -v mosquitto >/dev/null || PATH=$PATH:/usr/sbin
exec "$HA_VENV/bin/python" -u integration/homeassistant/test_homeassistant.py
