#!/usr/bin/env python3
"""A loopback HTTP server for the attachment tests (AttachmentFetchTests), on 127.0.0.1 only.

The path chooses the answer:
  /jpeg/<n>            200, a JPEG of n bytes (Content-Type image/jpeg)
  /png                 200, a small real PNG
  /text                200, text/plain
  /empty               200, no body
  /status/<code>       that status, a short text body
  /redirect/<n>        302 to /redirect/<n-1>; /redirect/0 answers like /jpeg/2000
  /loop                302 to /loop, forever
  /slow/<s>            waits s seconds, then answers like /jpeg/2000
  /endless             200, a JPEG header and then bytes without end (chunked)
  /silent              accepts the request and never answers (until the client leaves)
  /auth                200 JPEG only with Authorization: Bearer secret-token, else 401
Any other path: 404. GET /_requests answers every request so far as a JSON list of
{path, headers}. Usage: media_server.py PORT
"""
import json, struct, sys, threading, time, zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

lock = threading.Lock()
requests = []


def jpeg(n):
    head = b"\xff\xd8\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    body = head + b"\x00" * max(0, n - len(head) - 2) + b"\xff\xd9"
    return body[:n] if n >= len(head) + 2 else body


def png():
    raw = b"".join(b"\x00" + bytes([10, 120, 200]) * 4 for _ in range(4))
    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body=b"", ctype="application/octet-stream", headers=()):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/_requests":
            with lock:
                body = json.dumps(requests).encode()
            return self.answer(200, body, "application/json")
        with lock:
            requests.append({"path": self.path, "headers": dict(self.headers.items())})
        parts = self.path.strip("/").split("/")
        try:
            self.route(parts)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def route(self, parts):
        head = parts[0]
        if head == "jpeg" and len(parts) == 2:
            return self.answer(200, jpeg(int(parts[1])), "image/jpeg")
        if head == "png":
            return self.answer(200, png(), "image/png")
        if head == "text":
            return self.answer(200, b"not a picture at all\n", "text/plain")
        if head == "empty":
            return self.answer(200, b"", "image/jpeg")
        if head == "status" and len(parts) == 2:
            return self.answer(int(parts[1]), b"status " + parts[1].encode(), "text/plain")
        if head == "redirect" and len(parts) == 2:
            n = int(parts[1])
            if n <= 0:
                return self.answer(200, jpeg(2000), "image/jpeg")
            return self.answer(302, b"", "text/plain", [("Location", "/redirect/%d" % (n - 1))])
        if head == "loop":
            return self.answer(302, b"", "text/plain", [("Location", "/loop")])
        if head == "slow" and len(parts) == 2:
            time.sleep(float(parts[1]))
            return self.answer(200, jpeg(2000), "image/jpeg")
        if head == "endless":
            self.send_response(200)
            self.send_header("Content-Type", "image/jpeg")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            first = jpeg(64)[:-2]
            self.wfile.write(b"%x\r\n%s\r\n" % (len(first), first))
            block = b"\x00" * 65536
            deadline = time.time() + 60
            while time.time() < deadline:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(block), block))
            return
        if head == "silent":
            time.sleep(30)
            return
        if head == "auth":
            if self.headers.get("Authorization") == "Bearer secret-token":
                return self.answer(200, jpeg(1500), "image/jpeg")
            return self.answer(401, b"no", "text/plain")
        return self.answer(404, b"no such path", "text/plain")


class Server(ThreadingHTTPServer):
    daemon_threads = True


if __name__ == "__main__":
    Server(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
