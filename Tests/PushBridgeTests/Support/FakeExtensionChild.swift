/// The one scripted external extension child of the tests (`extension.command`): a
/// Python script whose behaviour depends on the request, plus a few switches on its
/// command line for what differs between tests.
///
/// `FakeExtensionChild.command()` gives the `command` of an `ExtensionConfig`,
/// `FakeExtensionChild.yaml()` the same as a YAML flow sequence for `command:`.
///
/// At start it writes `child ready` on stderr. Then, for each request:
///
/// | request                          | behaviour                                                         |
/// |----------------------------------|-------------------------------------------------------------------|
/// | body `suppress`                  | answers `{}` (suppress when entitled)                             |
/// | body `never` or `hang`           | never answers; writes `holding <body>` on stderr (wait on that)   |
/// | body `expire`                    | answers on its `time_will_expire` event, title `rescued`          |
/// | body `crash`                     | exits with status 3                                               |
/// | body `crash-held`                | starts a `sleep 25` that inherits stdout, writes `held-pid <pid>` |
/// |                                  | on stderr, then exits with status 3 (stdout stays open)           |
/// | body `garbage`                   | answers with a content that is not an object (`5`)                |
/// | body `badtitle`                  | answers with a content whose title is a number                    |
/// | body `nonjson`                   | answers with a line that is not JSON (but names the id)           |
/// | body `noise`                     | writes an unusable line with no id, then answers                  |
/// | body `modify`                    | answers with body `modified by the child`                         |
/// | body `echo`                      | answers the content unchanged, plus the request under `seen`      |
/// | body `slow`                      | answers after 500 ms                                              |
/// | topic ending `/shuffle`          | held; answered in random order in batches (40, or every 20 ms)    |
/// | topic ending `/slow`             | held until a request with body `release`, then answered newest    |
/// |                                  | first (then the `release` itself)                                 |
/// | anything else                    | answers the content unchanged, at once                            |
///
/// Other events than `time_will_expire` are ignored. Switches (`Option`):
/// - `--retitle`: every answer of the table that carries the request's content (not
///   `expire`, `echo`, `garbage`…) gets the title `ext:<body>`, so it counts as modified;
/// - `--echo`: an unusable line `echo <body>` is written before each such answer (the
///   payload then shows in the bridge's debug log);
/// - `--jitter`: "anything else" is answered after a random delay up to 30 ms, so answers
///   come back out of order.
enum FakeExtensionChild {
    enum Option: String, Sendable {
        case retitle = "--retitle"
        case echo = "--echo"
        case jitter = "--jitter"
    }

    /// `[/usr/bin/python3, -u, <script>, <switches>…]`, the script in a fresh temp file.
    static func command(_ options: Option...) throws -> [String] {
        try command(options)
    }

    static func command(_ options: [Option]) throws -> [String] {
        ["/usr/bin/python3", "-u", try writeTempFile(script, name: "fake-extension.py")] + options.map(\.rawValue)
    }

    /// `command(options)` as a YAML flow sequence, for `command:`.
    static func yaml(_ options: Option...) throws -> String {
        "[" + (try command(options)).map { "\"\($0)\"" }.joined(separator: ", ") + "]"
    }

    static let script = #"""
import json, os, random, subprocess, sys, threading, time

RETITLE = "--retitle" in sys.argv[1:]
ECHO = "--echo" in sys.argv[1:]
JITTER = "--jitter" in sys.argv[1:]

lock = threading.Lock()
waiting, shuffled, slow = {}, [], []
flusher = None

def say(text):
    sys.stderr.write(text + "\n")
    sys.stderr.flush()

def write(*lines):
    with lock:
        for line in lines:
            sys.stdout.write(line + "\n")
        sys.stdout.flush()

def send(obj):
    write(json.dumps(obj))

def answer(req, title=None):
    c = req["content"]
    body = c.get("body", "")
    if title is not None:
        c["title"] = title
    elif RETITLE:
        c["title"] = "ext:" + body
    line = json.dumps({"id": req["id"], "content": c})
    if ECHO:
        write("echo " + body, line)
    else:
        write(line)

def flush_shuffled():
    while True:
        time.sleep(0.02)
        with lock:
            batch = shuffled[:]
            del shuffled[:]
        random.shuffle(batch)
        for r in batch:
            answer(r)

say("child ready")
for line in sys.stdin:
    req = json.loads(line)
    if "event" in req:
        if req["event"] == "time_will_expire":
            pending = waiting.pop(req["id"], None)
            if pending is not None:
                answer(pending, "rescued")
        continue
    body = req["content"].get("body", "")
    topic = req.get("topic", "")
    if body == "suppress":
        send({"id": req["id"], "content": {}})
    elif body in ("never", "hang"):
        say("holding " + body)
    elif body == "expire":
        waiting[req["id"]] = req
    elif body == "crash":
        os._exit(3)
    elif body == "crash-held":
        held = subprocess.Popen(["sleep", "25"])   # inherits stdout and holds it open after the exit
        say("held-pid %d" % held.pid)
        os._exit(3)
    elif body == "garbage":
        send({"id": req["id"], "content": 5})
    elif body == "badtitle":
        send({"id": req["id"], "content": {"title": 5}})
    elif body == "nonjson":
        write('{"id": "' + req["id"] + '", oops')
    elif body == "noise":
        write("hello from the child")
        answer(req)
    elif body == "modify":
        req["content"]["body"] = "modified by the child"
        answer(req)
    elif body == "echo":
        send({"id": req["id"], "content": req["content"], "seen": req})
    elif body == "slow":
        threading.Timer(0.5, answer, [req]).start()
    elif topic.endswith("/shuffle"):
        if flusher is None:
            flusher = threading.Thread(target=flush_shuffled, daemon=True)
            flusher.start()
        with lock:
            shuffled.append(req)
            batch = shuffled[:] if len(shuffled) >= 40 else []
            if batch:
                del shuffled[:]
        random.shuffle(batch)
        for r in batch:
            answer(r)
    elif topic.endswith("/slow"):
        slow.append(req)
    elif body == "release":
        for r in reversed(slow):
            answer(r)
        slow = []
        answer(req)
    elif JITTER:
        threading.Timer(random.random() * 0.03, answer, [req]).start()
    else:
        answer(req)
"""#
}
