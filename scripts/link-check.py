#!/usr/bin/env python3
"""The link check: every relative link in README.md and docs/*.md resolves.

  scripts/link-check.py [FILE.md...]

A link `[text](target)` or `![alt](target)` whose target is not a URL (no `scheme:`) must
name a file or directory that exists, relative to the Markdown file; a `#anchor` (alone, or
after a `.md` file) must be a heading of that file, made into an anchor as GitHub does
(lower case, punctuation dropped, spaces to `-`, repeats numbered `-1`, `-2`). Links inside
code blocks and inline code are ignored. Also fails when one of these files mentions the
project's private design notes (`shared/`, `SPEC.md`, "SPEC section"), which a user of the
repository does not have. Python 3 standard library only.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FORBIDDEN = re.compile(r"shared/|SPEC\.md|SPEC section")


def prose_lines(text):
    """(line number, line) outside fenced code blocks, with inline code blanked."""
    fence = None
    for n, line in enumerate(text.splitlines(), 1):
        stripped = line.lstrip()
        if fence:
            if stripped.startswith(fence):
                fence = None
            continue
        if stripped.startswith("```") or stripped.startswith("~~~"):
            fence = stripped[:3]
            continue
        yield n, re.sub(r"`[^`]*`", lambda m: " " * len(m.group(0)), line)


def slug(heading):
    text = re.sub(r"<[^>]+>", "", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = text.strip().lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        seen, out = {}, set()
        with open(path) as f:
            fence = None
            for line in f:
                s = line.lstrip()
                if fence:
                    fence = None if s.startswith(fence) else fence
                    continue
                if s.startswith("```") or s.startswith("~~~"):
                    fence = s[:3]
                    continue
                m = HEADING.match(line.rstrip("\n"))
                if not m:
                    continue
                base = slug(m.group(2))
                n = seen.get(base, 0)
                seen[base] = n + 1
                out.add(base if n == 0 else f"{base}-{n}")
        cache[path] = out
    return cache[path]


def check(path):
    problems = []
    rel = os.path.relpath(path, ROOT)
    with open(path) as f:
        text = f.read()
    for n, line in enumerate(text.splitlines(), 1):
        if FORBIDDEN.search(line):
            problems.append(f"{rel}:{n}: refers to a file outside the repository: {line.strip()[:80]}")
    for n, line in prose_lines(text):
        for m in LINK.finditer(line):
            target = m.group(1)
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
                continue
            file_part, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
            if not os.path.exists(dest):
                problems.append(f"{rel}:{n}: broken link '{target}': no {os.path.relpath(dest, ROOT)}")
                continue
            if anchor and dest.endswith(".md") and anchor not in anchors(dest):
                problems.append(f"{rel}:{n}: broken link '{target}': no heading '#{anchor}' in {os.path.relpath(dest, ROOT)}")
    return problems


def main(argv):
    files = [os.path.abspath(a) for a in argv] or (
        [os.path.join(ROOT, "README.md")]
        + sorted(os.path.join(ROOT, "docs", f) for f in os.listdir(os.path.join(ROOT, "docs")) if f.endswith(".md")))
    problems = []
    for path in files:
        problems += check(path)
    for p in problems:
        print(p, file=sys.stderr)
    if not problems:
        print(f"links: {len(files)} files, every relative link resolves")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
