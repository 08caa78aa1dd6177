# shellcheck shell=bash
# Sourced by the test scripts that start servers: stop them by PID.

# stop_pids PID...: SIGTERM each, give each up to 5 s to exit, then SIGKILL it, and reap it.
stop_pids() {
    local pid
    for pid in "$@"; do kill "$pid" 2>/dev/null || true; done
    for pid in "$@"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
}
