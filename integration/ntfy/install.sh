#!/usr/bin/env bash
# Fetches Debian's ntfy package (it exists from trixie on; this machine runs bookworm) with a
# private apt configuration under $NTFY_CACHE, never touching the machine's own sources, and
# unpacks it there. Prints the path of the ntfy binary. Idempotent: a second run only prints.
set -euo pipefail
NTFY_CACHE=${NTFY_CACHE:-/var/cache/pushbridge-test/ntfy}
BIN="$NTFY_CACHE/root/usr/bin/ntfy"
if [ -x "$BIN" ] && [ -f "$NTFY_CACHE/.pushbridge-complete" ]; then echo "$BIN"; exit 0; fi
if ! mkdir -p "$NTFY_CACHE" 2>/dev/null || [ ! -w "$NTFY_CACHE" ]; then
  sudo mkdir -p "$NTFY_CACHE" && sudo chown "$(id -u)" "$NTFY_CACHE"
fi
mkdir -p "$NTFY_CACHE"/{etc/preferences.d,state/lists/partial,cache/archives/partial,deb,root}
# The same mirror as the machine's Debian sources (deb822 URIs: or a one-line deb entry).
MIRROR=$(grep -rhoE '^URIs:[[:space:]]*\S+/debian/?$' /etc/apt/sources.list.d/ 2>/dev/null | head -1 | awk '{print $2}' || true)
if [ -z "$MIRROR" ]; then
  MIRROR=$(grep -rhoE '^deb[[:space:]]+\S+/debian/?[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null | head -1 | awk '{print $2}' || true)
fi
MIRROR=${MIRROR:-http://deb.debian.org/debian}
cat > "$NTFY_CACHE/etc/sources.list" <<SRC
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR trixie main
SRC
touch "$NTFY_CACHE/state/status"
APT_OPTS=(-o "Dir::State=$NTFY_CACHE/state" -o "Dir::State::status=$NTFY_CACHE/state/status"
          -o "Dir::Cache=$NTFY_CACHE/cache" -o "Dir::Etc::SourceList=$NTFY_CACHE/etc/sources.list"
          -o "Dir::Etc::SourceParts=$NTFY_CACHE/etc/sources.list.d" -o "Dir::Etc::Preferences=$NTFY_CACHE/etc/preferences"
          -o "Dir::Etc::PreferencesParts=$NTFY_CACHE/etc/preferences.d" -o "APT::Architecture=$(dpkg --print-architecture)"
          -o "Debug::NoLocking=1" -o "APT::Get::List-Cleanup=0" -o "APT::Sandbox::User=$(id -un)")
mkdir -p "$NTFY_CACHE/etc/sources.list.d"
apt-get "${APT_OPTS[@]}" -qq update >&2
(cd "$NTFY_CACHE/deb" && rm -f ntfy_*.deb && apt-get "${APT_OPTS[@]}" -qq download ntfy >&2)
dpkg -x "$NTFY_CACHE"/deb/ntfy_*.deb "$NTFY_CACHE/root"
"$BIN" --help >/dev/null
touch "$NTFY_CACHE/.pushbridge-complete"
echo "$BIN"
