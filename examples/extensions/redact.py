#!/usr/bin/env python3
"""A pushbridge external extension (docs/formats.md, "External extension process"): decrypt, redact, filter.

Configure it in bridge.yml:

    extension:
      command: [python3, /etc/pushbridge/redact.py]

and give it a key in the environment: PUSHBRIDGE_DEMO_KEY=...

It does what Apple's documentation suggests a notification service extension do:

- Decrypt: when user_info has "encrypted": true, the body is base64 of the UTF-8 text
  XOR-ed with the key (repeated). The body is replaced by the plain text, and the
  "encrypted" flag is removed. Without a key, or when it does not decode, the body becomes
  "(encrypted message)" so ciphertext never reaches a screen.
- Redact: runs of 4 to 8 digits (one-time codes, PINs) in the title, subtitle and body
  become bullets of the same length.
- Filter: when user_info has "silent": true it hands back empty content ({}). pushbridge
  suppresses the notification only with the filtering entitlement and push type alert;
  otherwise the original is shown, as on Apple's devices.

XOR with a fixed key is a demonstration, not encryption. Python standard library only.
Reads one JSON request per line on stdin, writes one JSON answer per line on stdout,
logs to stderr (pushbridge forwards those lines to its log).
"""

import base64
import binascii
import json
import os
import re
import sys

CODE = re.compile(r"(?<!\d)\d{4,8}(?!\d)")
KEY = os.environ.get("PUSHBRIDGE_DEMO_KEY", "").encode("utf-8")


def redact(text):
    return CODE.sub(lambda m: "\u2022" * len(m.group(0)), text)


def decrypt(text):
    if not KEY:
        return None
    try:
        data = base64.b64decode(text, validate=True)
        plain = bytes(b ^ KEY[i % len(KEY)] for i, b in enumerate(data))
        return plain.decode("utf-8")
    except (binascii.Error, ValueError):
        return None


def handle(request):
    content = dict(request.get("content") or {})
    user_info = content.get("user_info")
    flags = user_info if isinstance(user_info, dict) else {}
    if flags.get("silent") is True:
        return {}
    if flags.get("encrypted") is True and isinstance(content.get("body"), str):
        plain = decrypt(content["body"])
        content["body"] = plain if plain is not None else "(encrypted message)"
        content["user_info"] = {k: v for k, v in flags.items() if k != "encrypted"}
    for field in ("title", "subtitle", "body"):
        if isinstance(content.get(field), str):
            content[field] = redact(content[field])
    return content


def main():
    print("redact.py ready (key %s)" % ("set" if KEY else "missing"), file=sys.stderr, flush=True)
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            request = json.loads(line)
        except ValueError:
            print("redact.py: ignoring a line that is not JSON", file=sys.stderr, flush=True)
            continue
        if "event" in request:
            continue  # time_will_expire: every answer here is immediate, nothing is pending
        answer = {"id": request.get("id"), "content": handle(request)}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
