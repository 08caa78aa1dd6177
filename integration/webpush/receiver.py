#!/usr/bin/env python3
"""A Web Push receiver for the tests: a push service and the browsers behind it, on loopback.

usage: receiver.py [--port N]       (run with the webpush venv: integration/webpush/install.sh)

Prints one line of JSON, {"port": N}, once it listens on 127.0.0.1 (port 0 or none: a free one).

  POST /_subscribe  {"path": "/push/a", "answers": [429, 201], "retry_after": 2,
                     "application_server_key": "<the page's VAPID public key>"}
      Makes a browser: a P-256 key pair and a 16-byte auth secret for the endpoint path
      (a new one replaces an old one), and answers its PushSubscription JSON (endpoint,
      expirationTime, keys.p256dh, keys.auth) as `PushSubscription.toJSON()` has it.
      `answers`: the statuses the push endpoint gives, in turn; the last repeats (default
      [201]). A 429 carries `Retry-After: <retry_after>` (default 1).
  POST <endpoint path>
      A push message. The receiver checks the VAPID `Authorization: vapid t=<JWT>, k=<key>`
      (RFC 8292: ES256 signature against `k`; `aud` is this server's origin; `exp` in the
      future and at most 24 h away; `sub` a mailto: or https: URI; `k` the subscription's
      application_server_key when one was given), decrypts the body with the browser's private
      key and auth secret (http_ece, aes128gcm, RFC 8291) and records both with the headers.
      A message whose VAPID check fails is answered 403 (as push services do), one that does
      not decrypt 400; otherwise the next configured answer. An unknown path is 404.
  GET /_received    every push received so far, in order: [{"path", "status", "headers",
                     "payload" (text, or null), "decrypt_error", "vapid": {"ok", "error",
                     "aud", "exp", "sub", "k"}, "at"}].

Standard library + PyPI's http-ece and cryptography only. Binds 127.0.0.1 only.
"""
import argparse, base64, json, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

MAX_BODY = 16 * 1024
LOCK = threading.Lock()
BROWSERS = {}      # path -> {"key", "auth", "answers", "retry_after", "server_key"}
RECEIVED = []


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def check_vapid(header, origin, server_key):
    """The VAPID verdict for an Authorization header: a dict with ok/error and the claims."""
    out = {"ok": False, "error": None, "aud": None, "exp": None, "sub": None, "k": None}
    try:
        if not header or not header.startswith("vapid "):
            raise ValueError("no 'vapid' Authorization")
        params = dict(part.strip().split("=", 1) for part in header[len("vapid "):].split(","))
        token, key = params["t"], params["k"]
        out["k"] = key
        head_b64, claims_b64, sig_b64 = token.split(".")
        head = json.loads(unb64url(head_b64))
        claims = json.loads(unb64url(claims_b64))
        out.update(aud=claims.get("aud"), exp=claims.get("exp"), sub=claims.get("sub"))
        if head.get("alg") != "ES256":
            raise ValueError(f"alg {head.get('alg')!r}, not ES256")
        point = unb64url(key)
        public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
        raw = unb64url(sig_b64)
        if len(raw) != 64:
            raise ValueError(f"signature of {len(raw)} bytes, not r||s (64)")
        der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
        public.verify(der, f"{head_b64}.{claims_b64}".encode("ascii"), ec.ECDSA(hashes.SHA256()))
        now = time.time()
        if claims.get("aud") != origin:
            raise ValueError(f"aud {claims.get('aud')!r}, not {origin!r}")
        if not isinstance(claims.get("exp"), int) or claims["exp"] <= now or claims["exp"] > now + 86400 + 60:
            raise ValueError(f"exp {claims.get('exp')!r} not within the next 24 hours")
        sub = claims.get("sub") or ""
        if not (sub.startswith("mailto:") or sub.startswith("https:")):
            raise ValueError(f"sub {sub!r} is no mailto: or https: URI")
        if server_key is not None and key != server_key:
            raise ValueError("k is not the subscription's applicationServerKey")
        out["ok"] = True
    except InvalidSignature:
        out["error"] = "the JWT's signature does not verify against k"
    except Exception as e:  # every other failure is a verdict too
        out["error"] = f"{type(e).__name__}: {e}"
    return out


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body=b"", headers=()):
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            raise ValueError("body too large")
        return self.rfile.read(length)

    def do_GET(self):
        if self.path == "/_received":
            with LOCK:
                return self.reply(200, list(RECEIVED), [("Content-Type", "application/json")])
        self.reply(404, b"not found\n")

    def do_POST(self):
        try:
            data = self.body()
        except ValueError:
            return self.reply(413, b"too large\n")
        if self.path == "/_subscribe":
            return self.subscribe(json.loads(data))
        with LOCK:
            browser = BROWSERS.get(self.path)
        if browser is None:
            return self.reply(404, b"no such subscription\n")
        origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        vapid = check_vapid(self.headers.get("Authorization"), origin, browser["server_key"])
        payload, decrypt_error = None, None
        try:
            if self.headers.get("Content-Encoding") != "aes128gcm":
                raise ValueError(f"Content-Encoding {self.headers.get('Content-Encoding')!r}")
            plain = http_ece.decrypt(data, private_key=browser["key"], auth_secret=browser["auth"], version="aes128gcm")
            payload = plain.decode("utf-8")
        except Exception as e:
            decrypt_error = f"{type(e).__name__}: {e}"
        with LOCK:
            answers = browser["answers"]
            status = answers.pop(0) if len(answers) > 1 else answers[0]
        if not vapid["ok"]:
            status = 403
        elif decrypt_error:
            status = 400
        record = {"path": self.path, "status": status, "headers": {k: v for k, v in self.headers.items()},
                  "payload": payload, "decrypt_error": decrypt_error, "vapid": vapid, "at": time.time()}
        with LOCK:
            RECEIVED.append(record)
        extra = [("Retry-After", str(browser["retry_after"]))] if status == 429 else []
        if status == 201:
            extra.append(("Location", f"{origin}/m/{len(RECEIVED)}"))
        self.reply(status, b"" if status < 300 else f"status {status}\n".encode(), extra)

    def subscribe(self, request):
        path = request.get("path", "")
        if not path.startswith("/") or path.startswith("/_"):
            return self.reply(400, b"path must start with / and not /_\n")
        key = ec.generate_private_key(ec.SECP256R1())
        auth = bytes(__import__("os").urandom(16))
        with LOCK:
            BROWSERS[path] = {"key": key, "auth": auth, "answers": list(request.get("answers") or [201]),
                              "retry_after": int(request.get("retry_after", 1)),
                              "server_key": request.get("application_server_key")}
        point = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        self.reply(200, {"endpoint": f"http://127.0.0.1:{self.server.server_address[1]}{path}", "expirationTime": None,
                         "keys": {"p256dh": b64url(point), "auth": b64url(auth)}}, [("Content-Type", "application/json")])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    server = ThreadingHTTPServer(("127.0.0.1", parser.parse_args().port), Handler)
    server.daemon_threads = True
    print(json.dumps({"port": server.server_address[1]}), flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
