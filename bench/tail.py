#!/usr/bin/env python3
"""bench/tail.py: where the fixed-rate latency tail comes from, from a packet capture.

    bench/tail.py [--qos Q] [--quickack] [--nodelay] [--relay] [--seconds S] [--keep FILE]
                  [--settle MS] [--keepalive S] [--bystander] [--binary PATH] [--read FILE PORT]

Runs the fixed-rate case (1 000 msg/s) of bench/bench.py against a broker with default
settings (`--nodelay`: plus `set_tcp_nodelay true`), with pushbridge in between (`--relay`: the
plain relay) and the default sink (`--quickack`: the sink of `mqttbench -A`), while `tcpdump`
captures the loopback. Then it reassembles every TCP stream on the broker's port, parses the
MQTT packets, follows each message (by its `"n":J`) over the hops

    publisher -> broker -> bridge -> broker -> sink

and prints, per hop, the p50/p99/max of the time between a message's PUBLISH leaving one
process and it leaving the next, plus, for each stream, how many segments carried more than
one PUBLISH and how many left the broker right after a segment from their receiver (< 20 us:
Nagle's signature, the segment waited for that ACK or PUBACK), and the receivers' ACK delays;
for each broker -> client stream, the bursts of held messages the broker sent without such a
segment (its socket buffer filled) and the segments acknowledged only after 20 ms. Needs tcpdump (apt-get install tcpdump)
and root; build with `make release` and run from the repository.
"""
import argparse
import os
import re
import statistics
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402

NUMBER = re.compile(rb'\\?"n\\?":(\d+)')


def read_pcap(path):
    """(time, src port, dst port, seq, ack, flags, payload) of every IPv4 TCP packet."""
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    endian, nano = {0xa1b2c3d4: ("<", False), 0xa1b23c4d: ("<", True)}[magic]
    link = struct.unpack(endian + "I", data[20:24])[0]
    offset, packets = 24, []
    while offset + 16 <= len(data):
        sec, frac, caplen, _ = struct.unpack(endian + "IIII", data[offset:offset + 16])
        frame = data[offset + 16:offset + 16 + caplen]
        offset += 16 + caplen
        ip = frame[14:] if link == 1 else frame[16:]  # Ethernet (lo) or Linux cooked
        if len(ip) < 20 or ip[0] >> 4 != 4 or ip[9] != 6:
            continue
        ihl = (ip[0] & 15) * 4
        total = struct.unpack("!H", ip[2:4])[0]
        tcp = ip[ihl:total]
        sport, dport, seq, ack, off_flags = struct.unpack("!HHIIH", tcp[:14])
        payload = tcp[(off_flags >> 12) * 4:]
        packets.append((sec + frac / (1e9 if nano else 1e6), sport, dport, seq, ack, off_flags & 0x3f, payload))
    return packets


def mqtt_publishes(chunks):
    """[(time of the segment that completed it, J)] of the PUBLISHes in one direction's byte
    stream, and [(time, publishes in the segment)] per data segment."""
    buffer, out, per_segment = b"", [], []
    for t, payload in chunks:
        buffer += payload
        count = 0
        while True:
            if len(buffer) < 2:
                break
            length, shift, i = 0, 0, 1
            while i < len(buffer) and i < 5:
                length |= (buffer[i] & 127) << shift
                shift += 7
                i += 1
                if buffer[i - 1] & 128 == 0:
                    break
            else:
                break
            if len(buffer) < i + length:
                break
            packet, buffer = buffer[:i + length], buffer[i + length:]
            if packet[0] >> 4 == 3:
                count += 1
                m = NUMBER.search(packet)
                if m:
                    out.append((t, int(m.group(1))))
        per_segment.append((t, count))
    return out, per_segment


def streams(packets, broker_port):
    """{(client port, "up" | "down"): [(time, seq, payload)]} with retransmissions dropped, and
    {key: [(time, ack, pure)]}: every packet's acknowledgement number (pure: no data), per direction."""
    flows, acks, seen = {}, {}, set()
    for t, sport, dport, seq, ack, flags, payload in packets:
        if broker_port not in (sport, dport):
            continue
        key = (dport, "down") if sport == broker_port else (sport, "up")
        if flags & 0x10:
            acks.setdefault(key, []).append((t, ack, not payload))
        if payload and (key, seq) not in seen:
            seen.add((key, seq))
            flows.setdefault(key, []).append((t, seq, payload))
    return flows, acks


def ack_delays(segments, peer_acks):
    """For each data segment, how long until the peer acknowledged its last byte."""
    delays, j = [], 0
    for t, seq, payload in segments:
        end = (seq + len(payload)) & 0xffffffff
        while j < len(peer_acks) and (peer_acks[j][0] < t or ((peer_acks[j][1] - end) & 0xffffffff) >= 1 << 31):
            j += 1
        if j < len(peer_acks):
            delays.append(peer_acks[j][0] - t)
    return delays


def quantiles(values):
    if not values:
        return "-"
    values = sorted(values)
    pick = lambda q: values[min(len(values) - 1, int(q * (len(values) - 1) + 0.5))] * 1e3
    return f"n={len(values):5d}  p50 {pick(0.5):7.3f}  p99 {pick(0.99):7.3f}  max {pick(1.0):7.3f} ms"


def analyse(path, broker_port):
    """Prints one or two lines per stream; returns {stream: {J: time}} and {stream: segment
    times that left within 20 us after a segment from the peer (its ACK, or a PUBACK carrying
    one, released them: Nagle)}."""
    flows, acks = streams(read_pcap(path), broker_port)
    hops, released = {}, {}
    for key, segments in flows.items():
        publishes, per_segment = mqtt_publishes([(t, p) for t, _, p in segments])
        if not publishes:
            continue
        peer = (key[0], "up" if key[1] == "down" else "down")
        peer_times = sorted(t for t, _, _ in acks.get(peer, []))
        after, j = set(), 0
        for t, _, _ in segments:
            while j < len(peer_times) and peer_times[j] <= t:
                j += 1
            if j and t - peer_times[j - 1] < 20e-6:
                after.add(t)
        multi = sum(1 for _, c in per_segment if c > 1)
        delays = ack_delays(segments, acks.get(peer, []))
        print(f"stream {key[0]} {key[1]:4}: {len(publishes):6d} publishes, {len(segments):6d} segments, "
              f"{multi} with >1 publish, {len(after)} sent < 20 us after a segment from the peer; "
              f"peer ACK delay {quantiles(delays)}")
        if key[1] == "down":
            # A burst the broker held back (Nagle) and then sent without a segment from the
            # receiver just before it: the socket's buffer filled (Linux sends a full segment
            # whatever Nagle says: MAX_SKB_FRAGS page fragments, one per write when the broker
            # writes to another client in between), not the receiver's ACK, let it go.
            bursts = [(t, c) for (t, _, _), (_, c) in zip(segments, per_segment) if c >= 8]
            pushed = sum(1 for t, _ in bursts if t not in after)
            late = sum(1 for d in delays if d > 20e-3)
            print(f"    bursts of >= 8 publishes: {len(bursts)} (largest {max((c for _, c in bursts), default=0)}), "
                  f"{pushed} sent without a segment from the peer just before; "
                  f"segments the peer acknowledged after > 20 ms: {late}")
        hops[key] = {j: t for t, j in publishes}
        released[key] = after
    return hops, released


def report(capture, port):
    """The per-stream lines and the per-hop delays of a capture."""
    hops, released = analyse(capture, port)
    # Order the streams along the path by their median delay after the publisher's stream
    # (the upstream stream that carries every message).
    ref = max((k for k in hops if k[1] == "up"), key=lambda k: len(hops[k]))
    offset = {k: statistics.median(v[j] - hops[ref][j] for j in v if j in hops[ref]) for k, v in hops.items()}
    path = sorted(hops, key=lambda k: offset[k])
    for a, b2 in zip(path, path[1:]):
        common = [j for j in hops[b2] if j in hops[a]]
        delays = [hops[b2][j] - hops[a][j] for j in common]
        held = [hops[b2][j] - hops[a][j] for j in common if hops[b2][j] in released[b2]
                and hops[b2][j] - hops[a][j] > 100e-6]
        print(f"hop {a[0]}/{a[1]} -> {b2[0]}/{b2[1]}: {quantiles(delays)}")
        print(f"    held > 0.1 ms, then sent on a segment from the receiver (Nagle): {quantiles(held)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--qos", type=int, default=0)
    ap.add_argument("--quickack", action="store_true")
    ap.add_argument("--nodelay", action="store_true")
    ap.add_argument("--relay", action="store_true")
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--settle", type=float, default=0, metavar="MS",
                    help="the sink waits MS after its SUBACK before the load starts (mqttbench -W)")
    ap.add_argument("--keepalive", type=int, default=60, metavar="S", help="the sink's keepalive (mqttbench -k)")
    ap.add_argument("--bystander", action="store_true",
                    help="a second subscriber on the sink's filter (mqttbench -S)")
    ap.add_argument("--keep", help="leave the capture in this file")
    ap.add_argument("--binary", help="the pushbridge to run (default: the release build)")
    ap.add_argument("--read", nargs=2, metavar=("FILE", "PORT"), help="only analyse a capture (broker port PORT)")
    args = ap.parse_args()
    if args.read:
        report(args.read[0], int(args.read[1]))
        return
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    tool = os.path.join(root, ".build/bench/mqttbench")
    os.makedirs(os.path.dirname(tool), exist_ok=True)
    subprocess.run(["cc", "-O2", "-o", tool, os.path.join(root, "bench/mqttbench.c"), "-lmosquitto", "-lpthread"],
                   check=True)
    binary = args.binary or subprocess.run([os.path.join(root, "scripts/swift-release.sh"), "--show-bin-path"],
                                           capture_output=True, text=True, check=True).stdout.strip() + "/pushbridge"
    work = tempfile.mkdtemp(prefix="pushbridge-tail-")
    capture = args.keep or os.path.join(work, "tail.pcap")
    broker = bench.Broker(work, tuned=False, nodelay=args.nodelay)
    b = bench.Bench(work, tool, binary)
    proc = None if args.relay else b.start_bridge("tail", broker, args.qos)
    dump = subprocess.Popen(["tcpdump", "-q", "-i", "lo", "-w", capture, "-s", "0",
                             f"tcp port {broker.port}"], stderr=subprocess.DEVNULL)
    time.sleep(1.0)
    try:
        n = int(bench.FIXED_RATE * args.seconds)
        r = b.gen(broker, "fixed", "-q", args.qos, "-Q", args.qos, "-r", bench.FIXED_RATE, "-d", args.seconds,
                  "-e", n if args.relay else bench.delivered(n, 16), "-s", "bench/#" if args.relay else "display/#",
                  "-i", 3, "-k", args.keepalive, *(["-A"] if args.quickack else []),
                  *(["-W", args.settle] if args.settle else []), *(["-S"] if args.bystander else []))
    finally:
        time.sleep(0.5)
        dump.terminate()
        dump.wait(10)
        if proc:
            b.stop_bridge(proc)
        broker.stop()
    print(f"end to end (sink's clock): p50 {r['p50_ms']:.3f} p99 {r['p99_ms']:.3f} max {r['max_ms']:.3f} ms")
    report(capture, broker.port)

if __name__ == "__main__":
    main()
