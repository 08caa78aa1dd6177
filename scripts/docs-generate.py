#!/usr/bin/env python3
"""Writes (or with --check, verifies) the parts of docs/ that pushbridge itself prints.

  scripts/docs-generate.py PUSHBRIDGE [--check]

  * docs/bridge.schema.json            `pushbridge schema`
  * docs/configuration.md key reference `pushbridge help config --markdown`, between its markers
  * every `<!-- run: ARGS -->` block    in docs/*.md: the fenced block right after the marker
                                        holds what `pushbridge ARGS` prints (run from the
                                        repository root; stderr included,
                                        but not its timestamped log lines), e.g. the `try`
                                        outputs of docs/decisions.md

and checks that docs/cli.md has a section per command of `pushbridge help` and explains
every option that `--help` and `help COMMAND` name.

--check changes nothing and exits 1 naming each file that differs (`make test` runs it, so
the documentation cannot drift from the program); without it the files are rewritten
(`make docs`). Python 3 standard library only.
"""
import glob
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs")
RUN = re.compile(r"(<!-- run: (.+?) -->\n```[a-z]*\n)(.*?)(```\n)", re.S)
ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TZ": "UTC", "LANG": "C.UTF-8"}


LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z ", re.M)


def run(binary, args):
    """What `pushbridge ARGS` prints: standard output, then standard error without its log
    lines (they carry the time they were written)."""
    out = subprocess.run([binary] + args, cwd=ROOT, capture_output=True, text=True, timeout=120, env=ENV)
    errors = "".join(line for line in out.stderr.splitlines(keepends=True) if not LOG_LINE.match(line))
    return out.stdout + errors


def generated(binary):
    """Each generated file's expected text, by path."""
    files = {os.path.join(DOCS, "bridge.schema.json"): run(binary, ["schema"])}
    reference = run(binary, ["help", "config", "--markdown"])
    begin, end = reference.splitlines()[0], reference.rstrip("\n").splitlines()[-1]
    for path in sorted(glob.glob(os.path.join(DOCS, "*.md"))):
        with open(path) as f:
            text = f.read()
        new = text
        if begin in new:
            start = new.index(begin)
            stop = new.index(end, start) + len(end) + 1
            new = new[:start] + reference + new[stop:]

        def replace(m):
            output = run(binary, shlex.split(m.group(2)))
            return m.group(1) + output + ("" if output.endswith("\n") else "\n") + m.group(4)
        new = RUN.sub(replace, new)
        files[path] = new
    return files


def cli_coverage(binary):
    """Every command of `pushbridge help` has a section in docs/cli.md with its help, and every
    option its `--help` or `help COMMAND` names is explained there (in a code span outside
    the printed help)."""
    problems = []
    with open(os.path.join(DOCS, "cli.md")) as f:
        text = f.read()
    prose = RUN.sub(lambda m: m.group(1).split("\n")[0], text)
    listed = run(binary, ["help", "no-such-command"]).rsplit("commands: ", 1)[-1].split()
    commands = [c.strip(",") for c in listed]
    helps = [run(binary, ["--help"])]
    for command in commands:
        if f"## `pushbridge {command}`" not in text or f"<!-- run: help {command} -->" not in text:
            problems.append(f"docs/cli.md: no section '## `pushbridge {command}`' with '<!-- run: help {command} -->'")
        helps.append(run(binary, ["help", command]))
    for flag in sorted(set(re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", "\n".join(helps)))):
        if not re.search(r"`" + re.escape(flag) + r"[ `]", prose):
            problems.append(f"docs/cli.md: option {flag} is not explained")
    return problems


def main(argv):
    if not argv or argv[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    binary, check = os.path.abspath(argv[0]), "--check" in argv[1:]
    stale = []
    for path, text in generated(binary).items():
        old = open(path).read() if os.path.exists(path) else None
        if old == text:
            continue
        stale.append(os.path.relpath(path, ROOT))
        if not check:
            with open(path, "w") as f:
                f.write(text)
    coverage = cli_coverage(binary)
    for problem in coverage:
        print(problem, file=sys.stderr)
    if coverage:
        return 1
    if check and stale:
        print("docs differ from what pushbridge prints (run `make docs`): " + ", ".join(stale), file=sys.stderr)
        return 1
    print(("stale: " if check else "rewrote: ") + (", ".join(stale) or "nothing") if stale or not check
          else "docs: generated parts match pushbridge's output")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
