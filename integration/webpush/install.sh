#!/usr/bin/env bash
# The Web Push receiver's Python (integration/webpush/receiver.py): a virtualenv cached outside the
# repository with PyPI's http-ece (RFC 8188/8291 decryption) and cryptography (the VAPID
# JWT's ES256 signature). Idempotent: does nothing when the venv already imports both.
#
# usage: integration/webpush/install.sh        (WEBPUSH_VENV overrides the location)
set -euo pipefail
VENV=${WEBPUSH_VENV:-/var/cache/pushbridge-test/webpush-venv}
if "$VENV/bin/python" -c 'import http_ece, cryptography' 2>/dev/null; then exit 0; fi
echo "creating $VENV (http-ece and cryptography from PyPI)"
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
$SUDO mkdir -p "$(dirname "$VENV")"
$SUDO chown "$(id -u)" "$(dirname "$VENV")"
/usr/bin/python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check http-ece cryptography
"$VENV/bin/python" -c 'import http_ece, cryptography' 
