"""Loads that run beside a flood: the attachments' snapshots (`AttachLoad`) and a dashboard
reader (`DashboardReader`), with a reader of one /metrics sample."""
import socket
import threading
import time
import urllib.request

def metric(port, name):
    """One unlabelled sample of the bridge's /metrics, or None."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2) as r:
            for line in r.read().decode().splitlines():
                if line.startswith(name + " "):
                    return float(line.split()[1])
    except OSError:
        return None
    return None


class AttachLoad:
    """20 alerts/s with a 200 KB snapshot each, beside the flood: a plain MQTT 3.1.1 client on
    a socket of its own publishes a JPEG-typed snapshot on cams/<cam>/snapshot and then the
    alert on cams/alert/<cam> (QoS 0), and samples the store's size on /metrics."""

    def __init__(self, broker_port, http_port, rate=20, size=200_000):
        self.broker_port, self.http_port, self.rate, self.size = broker_port, http_port, rate, size
        self.done = threading.Event()
        self.sent = 0
        self.store_max = 0.0
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    @staticmethod
    def packet(kind, body):
        n, length = len(body), b""
        while True:
            byte, n = n % 128, n // 128
            length += bytes([byte | (128 if n else 0)])
            if not n:
                return bytes([kind]) + length + body

    def publish(self, sock, topic, payload):
        t = topic.encode()
        sock.sendall(self.packet(0x30, len(t).to_bytes(2, "big") + t + payload))

    def run(self):
        sock = socket.create_connection(("127.0.0.1", self.broker_port), timeout=10)
        cid = b"bench-attach-load"
        sock.sendall(self.packet(0x10, b"\x00\x04MQTT\x04\x02\x00\x3c" + len(cid).to_bytes(2, "big") + cid))
        sock.recv(4)  # CONNACK
        picture = b"\xff\xd8\xff\xe0" + bytes(self.size - 6) + b"\xff\xd9"
        next_at, last_sample = time.monotonic(), 0.0
        while not self.done.is_set():
            cam = f"c{self.sent % 4}"
            self.publish(sock, f"cams/{cam}/snapshot", picture)
            self.publish(sock, f"cams/alert/{cam}", b'{"motion":true}')
            self.sent += 1
            now = time.monotonic()
            if now - last_sample >= 0.5:
                last_sample = now
                self.store_max = max(self.store_max, metric(self.http_port, "pushbridge_attachment_store_bytes") or 0)
            next_at += 1 / self.rate
            self.done.wait(max(0, next_at - time.monotonic()))
        sock.sendall(bytes([0xE0, 0]))
        sock.close()

    def stop(self):
        self.done.set()
        self.thread.join(5)
        return {"sent": self.sent, "store_max": self.store_max}


class DashboardReader:
    """One dashboard reader on /api/events for the whole case: reads (and counts) everything
    the bridge streams, as fast as a plain socket allows, on a thread of this process."""

    def __init__(self, port):
        self.port = port
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.sock.sendall(b"GET /api/events HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
        self.bytes = 0
        self.decisions = 0
        self.done = threading.Event()
        self.result = None
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 10
        while self.bytes == 0 and time.monotonic() < deadline:  # the first stats event: attached
            time.sleep(0.05)

    def run(self):
        self.sock.settimeout(0.5)
        tail = b""
        while not self.done.is_set():
            try:
                chunk = self.sock.recv(1 << 20)
            except socket.timeout:
                continue
            except OSError:
                break
            if not chunk:
                break
            self.bytes += len(chunk)
            data = tail + chunk
            self.decisions += data.count(b"event: decision")
            tail = data[-16:]
            if b"event: decision" in tail:
                self.decisions -= 1  # counted again with the next chunk

    def stop(self):
        if self.result is None:
            metrics = urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=5).read().decode()
            dropped = next((int(float(line.split()[-1])) for line in metrics.splitlines()
                            if line.startswith("pushbridge_dashboard_dropped_total ")), None)
            self.done.set()
            self.thread.join(5)
            self.sock.close()
            self.result = {"decisions": self.decisions, "bytes": self.bytes, "dropped": dropped}
        return self.result
