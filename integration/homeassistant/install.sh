#!/usr/bin/env bash
# Installs a real Home Assistant core for the tests in integration/homeassistant/ (idempotent).
# The virtual environment lives outside the repository (~600 MB, ~10 min on 2 cores the first
# time); a marker file records a complete install, so later runs return at once.
#   HA_VENV   where the venv goes   (default /var/cache/pushbridge-test/ha-$HA_VERSION)
#   HA_PYTHON the Python to build it (default CPython 3.13.0 under pyenv, else python3.13)
set -euo pipefail
HA_VERSION=${HA_VERSION:-2025.4.4}
HA_VENV=${HA_VENV:-/var/cache/pushbridge-test/ha-$HA_VERSION}
# What the integrations the tests use need at runtime beyond HA's own dependencies (HA is
# started with --skip-pip, so it must not install anything itself): the versions pinned in
# the integrations' manifest.json for 2025.4.4. Without the frontend HA starts in recovery
# mode (frontend is a critical default integration) and sets up no MQTT at all. PyNaCl: the
# mobile_app integration (the Companion app's registrations, phones of the home/away checks).
EXTRA_PACKAGES=(paho-mqtt==2.1.0 home-assistant-frontend==20250411.0 PyNaCl==1.5.0)
MARKER="$HA_VENV/.pushbridge-complete"
want="homeassistant==$HA_VERSION ${EXTRA_PACKAGES[*]}"

if [ -f "$MARKER" ] && [ "$(cat "$MARKER")" = "$want" ]; then
  exit 0
fi

python=${HA_PYTHON:-}
if [ -z "$python" ]; then
  root=$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")
  if [ -x "$root/versions/3.13.0/bin/python" ]; then python="$root/versions/3.13.0/bin/python"
  elif command -v python3.13 >/dev/null; then python=$(command -v python3.13)
  elif command -v pyenv >/dev/null; then
    echo "building CPython 3.13.0 with pyenv (once)"
    pyenv install -s 3.13.0
    python="$root/versions/3.13.0/bin/python"
  else
    echo "integration/homeassistant/install.sh: no CPython 3.13 (pyenv 3.13.0 or python3.13); set HA_PYTHON" >&2
    exit 1
  fi
fi

echo "installing Home Assistant $HA_VERSION into $HA_VENV (first time: ~10 min)"
mkdir -p "$(dirname "$HA_VENV")"
[ -x "$HA_VENV/bin/python" ] || "$python" -m venv "$HA_VENV"
"$HA_VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip wheel
"$HA_VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
  "homeassistant==$HA_VERSION" "${EXTRA_PACKAGES[@]}"
echo "$want" > "$MARKER"
echo "Home Assistant $HA_VERSION installed in $HA_VENV"
