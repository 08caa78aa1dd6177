#!/usr/bin/env python3
"""bench/pingpong.py: the default-broker tail with no MQTT, no broker and no bridge.

    bench/pingpong.py [--rate R] [--size B] [--seconds S] [--interleave] [--settle]

A sender that leaves Nagle on (as mosquitto does by default) writes B-byte messages at R/s to
a client that only reads, after the client has answered the sender's first message at once
(as a subscriber sends SUBSCRIBE right after CONNACK, or a PINGREQ in a busy stream: Linux
then treats the connection as interactive, "pingpong", and does not acknowledge a lone small
segment when the application reads it). `--interleave`: the sender writes 87 bytes to a second
connection after each message, as a broker forwards each input to a bridge between two display
messages (or to a second subscriber, or a PUBACK to a QoS 1 publisher). `--settle`: the sender
waits 100 ms before the stream, so the client's delayed ACK fires first and ends the
interactive mode. Prints the client's p50/p99/max receive delay. bench/README.md, "The
default-broker tail", has the figures and the explanation. Loopback only; bounded waits.
"""
import argparse
import socket
import struct
import threading
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rate", type=int, default=500)
    ap.add_argument("--size", type=int, default=333)
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--interleave", action="store_true")
    ap.add_argument("--settle", action="store_true")
    args = ap.parse_args()
    n, size = int(args.rate * args.seconds), max(args.size, 16)
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(10)
    port = listener.getsockname()[1]
    delays = []

    def client():
        c = socket.create_connection(("127.0.0.1", port), timeout=10)
        c.recv(4)               # the "CONNACK"
        c.sendall(b"SUB!")      # answered within the delayed-ACK time: interactive mode
        buffer = b""
        while len(delays) < n:
            data = c.recv(65536)
            if not data:
                break
            buffer += data
            while len(buffer) >= size:
                message, buffer = buffer[:size], buffer[size:]
                if message[:1] == b"M":
                    delays.append(time.monotonic() - struct.unpack("d", message[1:9])[0])
        c.close()

    def drain(s):
        try:
            while s.recv(65536):
                pass
        except OSError:
            pass

    reader = threading.Thread(target=client)
    reader.start()
    s, _ = listener.accept()
    other = socket.create_connection(("127.0.0.1", port), timeout=10)
    o, _ = listener.accept()
    threading.Thread(target=drain, args=(other,), daemon=True).start()
    s.settimeout(10)
    s.sendall(b"CACK")
    s.recv(4)
    s.sendall(b"S" * size)      # the "SUBACK": its ACK is delayed (interactive mode)
    if args.settle:
        time.sleep(0.1)
    step, due = 1.0 / args.rate, time.monotonic()
    for _ in range(n):
        due += step
        while time.monotonic() < due:
            time.sleep(max(0.0, due - time.monotonic() - 50e-6))
        s.sendall(b"M" + struct.pack("d", time.monotonic()) + b"x" * (size - 9))
        if args.interleave:
            o.sendall(b"i" * 87)
    reader.join(args.seconds + 10)
    for sock in (s, o, other, listener):
        sock.close()
    delays.sort()
    if not delays:
        raise SystemExit("pingpong: nothing arrived")
    pick = lambda q: delays[min(len(delays) - 1, int(q * (len(delays) - 1) + 0.5))] * 1e3
    print(f"rate {args.rate}/s size {size} B interleave={args.interleave} settle={args.settle}: "
          f"p50 {pick(0.5):.3f} p99 {pick(0.99):.3f} max {pick(1.0):.3f} ms ({len(delays)} of {n})")


if __name__ == "__main__":
    main()
