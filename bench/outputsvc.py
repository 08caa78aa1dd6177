"""The loopback services of the outputs benchmark (bench/outputs.py): the C sink
(bench/httpsink.c, built by bench/run.sh into .build/bench/httpsink), a real ntfy, and a Web
Push subscription made with openssl's command line (a fresh P-256 key and auth secret)."""
import base64, json, os, subprocess, time, urllib.request

import bench as B

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SINK = os.environ.get("BENCH_HTTPSINK", os.path.join(ROOT, ".build/bench/httpsink"))


class HTTPSink:
    """bench/httpsink on a free loopback port: answers 204 (after `delay_ms`), counts."""

    def __init__(self, workdir, delay_ms=0):
        self.port = B.free_port()
        self.log = open(os.path.join(workdir, f"httpsink-{self.port}.log"), "w")
        self.proc = subprocess.Popen([SINK, str(self.port), str(delay_ms)], stdout=subprocess.PIPE, stderr=self.log, text=True)
        line = self.proc.stdout.readline()
        if not line.startswith("listening"):
            self.proc.kill()
            raise RuntimeError(f"httpsink did not start (see {self.log.name})")

    def count(self):
        """{"count", "first", "last"}: answers counted, the monotonic times of the first and last."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/count", timeout=5) as r:
            return json.load(r)

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class Ntfy:
    """A real ntfy (Debian's, fetched by integration/ntfy/install.sh) on a free loopback port."""

    def __init__(self, workdir):
        binary = subprocess.run([os.path.join(ROOT, "integration/ntfy/install.sh")], capture_output=True, text=True,
                                check=True, timeout=300).stdout.split()[-1]
        self.port = B.free_port()
        conf = os.path.join(workdir, "ntfy.yml")
        with open(conf, "w") as f:
            f.write(f'listen-http: "127.0.0.1:{self.port}"\nbase-url: "http://127.0.0.1:{self.port}"\n'
                    f'cache-file: "{workdir}/ntfy-cache.db"\nvisitor-request-limit-exempt-hosts: "127.0.0.1"\n'
                    # ntfy's own advice for many messages: write the cache in batches.
                    'cache-batch-size: 100\ncache-batch-timeout: "100ms"\n')
        self.log = open(os.path.join(workdir, "ntfy.log"), "w")
        self.proc = subprocess.Popen([binary, "serve", "--config", conf], stdout=self.log, stderr=subprocess.STDOUT)
        for _ in range(100):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/v1/health", timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        self.version = next((l.split("ntfy ")[1].split(",")[0] for l in open(self.log.name) if "Listening on" in l), "?")

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def subscribe_webpush(http_port, token_file, endpoint):
    """Subscribes `endpoint` through the bridge's subscription API, as a browser would: a fresh
    P-256 public key (the last 65 bytes of its DER SubjectPublicKeyInfo: the uncompressed point)
    and a 16-byte auth secret."""
    key = subprocess.run(["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout"], capture_output=True,
                         check=True).stdout
    der = subprocess.run(["openssl", "ec", "-pubout", "-outform", "DER"], input=key, capture_output=True,
                         check=True).stdout
    body = json.dumps({"endpoint": endpoint, "expirationTime": None,
                       "keys": {"p256dh": b64url(der[-65:]), "auth": b64url(os.urandom(16))}}).encode()
    token = open(token_file).read().strip()
    request = urllib.request.Request(f"http://127.0.0.1:{http_port}/api/webpush/subscriptions", data=body, method="POST",
                                     headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=5) as r:
        if r.status != 201:
            raise RuntimeError(f"subscription refused: HTTP {r.status}")
