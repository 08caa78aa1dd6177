#!/bin/sh
# Measures QoS 1 throughput through `pushbridge run` with and without the journal, against
# a plain mosquitto relay in the same run. Usage: scripts/journal-cost.sh [binary] [count]
set -eu
BIN=${1:-.build/release/pushbridge}
N=${2:-20000}
DIR=$(mktemp -d)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat > "$DIR/m.conf" <<CONF
listener $PORT 127.0.0.1
allow_anonymous true
max_queued_messages 1000000
max_inflight_messages 1000
CONF
mosquitto -c "$DIR/m.conf" >"$DIR/broker.log" 2>&1 & BROKER=$!
trap 'kill $BROKER 2>/dev/null; rm -rf "$DIR"' EXIT
sleep 0.5
seq 1 "$N" > "$DIR/lines"
# Seconds until N messages on $1 arrived after publishing N to $2.
measure() {
    mosquitto_sub -p "$PORT" -q 1 -t "$1" -C "$N" > /dev/null & SUB=$!
    sleep 0.3
    start=$(date +%s.%N)
    mosquitto_pub -p "$PORT" -q 1 -t "$2" -l < "$DIR/lines"
    wait $SUB
    end=$(date +%s.%N)
    echo "$start $end" | awk -v n="$N" '{ printf "%.0f", n / ($2 - $1) }'
}
relay=$(measure "relay/x" "relay/x")
echo "plain relay: $relay msg/s"
for journal in off never interval always; do
    cat > "$DIR/bridge.yml" <<YML
broker: {host: 127.0.0.1, port: $PORT, client_id: cost-$journal}
routes:
  - {name: in, topic: "in/+", qos: 1, input: text, mutable_content: false, alert: {body: "{{ raw }}"}}
display: {topic: "display/{{ topic }}", qos: 1}
monitoring: {status_topic: null, stats_topic: null, log_level: warning}
YML
    if [ "$journal" != off ]; then
        printf 'journal: {path: %s/j-%s, fsync: %s}\n' "$DIR" "$journal" "$journal" >> "$DIR/bridge.yml"
    fi
    "$BIN" run -c "$DIR/bridge.yml" & B=$!
    sleep 1
    rate=$(measure "display/in/x" "in/x")
    kill -TERM $B; wait $B || true
    echo "journal $journal: $rate msg/s ($(echo "$rate $relay" | awk '{ printf "%.2f", $1 / $2 }') of the relay)"
done
