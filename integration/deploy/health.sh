#!/usr/bin/env bash
# `pushbridge health` (the image's and compose's healthcheck) against small local HTTP servers:
#   200 -> exit 0; another status -> 1; refused -> 1; accepted but silent -> 1 within the 2 s
#   budget (bounded here at 6 s); no monitoring.http and no --url -> 2 with the documented message;
#   a wildcard monitoring.http (0.0.0.0:PORT, as compose sets) is probed on loopback -> 0;
#   a URL that is not http:// -> 2.
# Usage: integration/deploy/health.sh PATH_TO_PUSHBRIDGE      (exit 0 on success)
set -euo pipefail
BIN=${1:-}
[ -n "$BIN" ] && BIN=$(realpath -e "$BIN" 2>/dev/null || echo "$BIN")
cd "$(dirname "$0")/../.."
# shellcheck source=integration/deploy/lib.sh
. integration/deploy/lib.sh
require_binary "$BIN"

# One server process: /healthz -> 200, anything else -> 503; plus a socket that accepts and never answers.
python3 - "$DEPLOY_TMP/ports" <<'PY' > "$DEPLOY_TMP/server.log" 2>&1 &
import http.server, socket, sys, threading
class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200 if self.path == "/healthz" else 503)
        self.end_headers()
    def log_message(self, *args): pass
web = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
silent = socket.socket(); silent.bind(("127.0.0.1", 0)); silent.listen(8)
held = []
def hold():
    while True:
        held.append(silent.accept()[0])
threading.Thread(target=hold, daemon=True).start()
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(f"{web.server_address[1]} {silent.getsockname()[1]}\n")
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
web.serve_forever()
PY
DEPLOY_PIDS+=("$!")
wait_for 10 test -s "$DEPLOY_TMP/ports" || fail "the test HTTP server did not start"
read -r WEB SILENT < "$DEPLOY_TMP/ports"
CLOSED=$(free_port)

# A config with no monitoring.http (nor the http_auth that guards it), and one with the
# compose-style wildcard address.
sed -e '/^  http:/d' -e '/^  http_auth:/,/^    token_file:/d' bridge.yml > "$DEPLOY_TMP/no-http.yml"
grep -q 'http_auth\|token_file' "$DEPLOY_TMP/no-http.yml" && fail "no-http.yml still has http_auth"
# shellcheck disable=SC2016  # the pattern is literal text of bridge.yml
grep -q 'http: \${PUSHBRIDGE_HTTP:-}' bridge.yml || fail "bridge.yml has no 'http: \${PUSHBRIDGE_HTTP:-}'"

failures=0
expect() { # WANT_EXIT STDERR_PART ENV... -- ARGS...: run `pushbridge health ARGS` with ENV
    local want=$1 part=$2; shift 2
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
    local rc=0 start=$SECONDS
    env MQTT_PASSWORD_FILE= "${envs[@]}" timeout 6 "$PUSHBRIDGE" health "$@" 2> "$DEPLOY_TMP/err" || rc=$?
    if [ "$rc" != "$want" ] || { [ -n "$part" ] && ! grep -qF -- "$part" "$DEPLOY_TMP/err"; } \
        || { [ "$want" = 0 ] && [ -s "$DEPLOY_TMP/err" ]; }; then
        echo "health $*: exit $rc (want $want), stderr: $(cat "$DEPLOY_TMP/err") (want it to contain '$part')" >&2
        failures=$((failures + 1))
    else
        echo "ok: ${envs[*]} health $* -> $rc in $((SECONDS - start)) s"
    fi
}
expect 0 ""                       -- -c bridge.yml --url "http://127.0.0.1:$WEB/healthz"
expect 0 ""                       -- -c bridge.yml --url "http://localhost:$WEB/healthz"
expect 1 "HTTP 503"               -- -c bridge.yml --url "http://127.0.0.1:$WEB/readyz"
expect 1 "Connection refused"     -- -c bridge.yml --url "http://127.0.0.1:$CLOSED/healthz"
expect 1 "no answer within"       -- -c bridge.yml --url "http://127.0.0.1:$SILENT/healthz"
expect 2 "only http:// and https://" -- -c bridge.yml --url "ftp://127.0.0.1:$WEB/healthz"
expect 1 "TLS handshake"          -- -c bridge.yml --url "https://127.0.0.1:$WEB/healthz"
expect 1 "no answer within"       -- -c bridge.yml --url "https://127.0.0.1:$SILENT/healthz"
expect 2 "monitoring.http is not set; nothing to check" -- -c "$DEPLOY_TMP/no-http.yml"
expect 2 "monitoring.http is not set; nothing to check" PUSHBRIDGE_HTTP= -- -c bridge.yml
expect 0 ""                       PUSHBRIDGE_HTTP="0.0.0.0:$WEB" -- -c bridge.yml
expect 0 ""                       PUSHBRIDGE_HTTP="127.0.0.1:$WEB" -- -c bridge.yml
expect 1 "Connection refused"     PUSHBRIDGE_HTTP="127.0.0.1:$CLOSED" -- -c bridge.yml
[ "$failures" = 0 ] || fail "$failures health check(s) behaved wrongly"
echo "health: passed"
