#!/usr/bin/env python3
"""A loopback HTTP endpoint for the webhook tests (OutputWebhookTests), on 127.0.0.1 only.

The path chooses the answer:
  /ok/...              200
  /flaky/<n>/...       503 for the first n requests to that path, then 200
  /bad/...             400 with a 300-byte body (the dead letter keeps its first 200 bytes)
  /limited/<s>/...     429 with Retry-After: <s> for the first request to that path, then 200
  /slow/<s>/...        waits <s> seconds, then 200
GET /_requests answers every request received so far as a JSON list of
{method, path, headers, body, at} (at: seconds since 1970).
Usage: hook_server.py PORT
"""
import json, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

lock = threading.Lock()
requests = []
seen = {}

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body=b"", headers=()):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/_requests":
            with lock:
                body = json.dumps(requests).encode()
            self.answer(200, body, [("Content-Type", "application/json")])
        else:
            self.handle_any()

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8", "replace")
        parts = self.path.strip("/").split("/")
        with lock:
            n = seen.get(self.path, 0)
            seen[self.path] = n + 1
            requests.append({"method": self.command, "path": self.path, "headers": dict(self.headers.items()),
                             "body": body, "at": time.time()})
        kind = parts[0]
        if kind == "flaky" and n < int(parts[1]):
            self.answer(503, b"try later")
        elif kind == "bad":
            self.answer(400, b"E" * 150 + b"x" * 150, [("Content-Type", "text/plain")])
        elif kind == "limited" and n == 0:
            self.answer(429, b"slow down", [("Retry-After", parts[1])])
        elif kind == "slow":
            time.sleep(float(parts[1]))
            self.answer(200, b"{}")
        else:
            self.answer(200, b"{}", [("Content-Type", "application/json")])

    do_POST = do_PUT = do_PATCH = handle_any

ThreadingHTTPServer.daemon_threads = True
server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
print("listening", flush=True)
server.serve_forever()
