#!/usr/bin/env python3
"""Validates bridge configs against docs/bridge.schema.json with a real JSON Schema validator.

  scripts/schema-check.py [--collected DIR] [--typo PUSHBRIDGE] [FILE...]

Without FILE: every bridge config in the repository (bridge.yml, examples/**/bridge*.yml,
compose/bridge*.yml, fuzz/recipes/*.yml, docs/*.yml); each must also begin with the line
`# yaml-language-server: $schema=<relative path to docs/bridge.schema.json>`, so editors that
speak yaml-language-server complete and check it.

--collected DIR: the configs the Swift tests loaded (PUSHBRIDGE_TEST_CONFIGS=DIR swift test):
DIR/valid/*.yml must validate, DIR/invalid/*.yml (rejected by the loader) must not.

Also every ```yaml block of README.md and docs/*.md that begins with that line (with
--typo, `PUSHBRIDGE check` must load each too).

--typo PUSHBRIDGE: a key misspelt in bridge.yml (one per section) must fail both the schema
and `PUSHBRIDGE check`, each naming the misspelt key.

YAML is read as YAML 1.2 (the core schema, as yaml-language-server and pushbridge's loader do:
`yes` and `22:00` are strings). Needs python3-jsonschema (Draft 2020-12) and python3-yaml.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

import jsonschema
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA = os.path.join(ROOT, "docs", "bridge.schema.json")
MODELINE = re.compile(r"^# yaml-language-server: \$schema=(\S+)$")


class Yaml12Loader(yaml.SafeLoader):
    """PyYAML's safe loader with YAML 1.2 core-schema scalars instead of YAML 1.1's."""


Yaml12Loader.yaml_implicit_resolvers = {}
for tag, pattern, first in [
    ("bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    ("int", r"^(?:[-+]?[0-9]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    ("float", r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
     "-+0123456789."),
    ("merge", r"^(?:<<)$", "<"),
]:
    Yaml12Loader.add_implicit_resolver("tag:yaml.org,2002:" + tag, re.compile(pattern), list(first))


def validator():
    with open(SCHEMA) as f:
        import json
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def problems(v, path):
    """Each schema error of the file as `path: key.path: message` (the most specific cause)."""
    with open(path) as f:
        doc = yaml.load(f, Loader=Yaml12Loader)
    out = []
    for error in sorted(v.iter_errors(doc), key=lambda e: list(map(str, e.path))):
        best = jsonschema.exceptions.best_match([error])
        where = ".".join(str(p) for p in best.absolute_path) or "(root)"
        out.append(f"{shown(path)}: {where}: {best.message}")
    return out


def shown(path):
    """`path` relative to the repository when inside it."""
    rel = os.path.relpath(path, ROOT)
    return path if rel.startswith("..") else rel


def repo_configs():
    files = [os.path.join(ROOT, "bridge.yml")]
    for pattern in ["examples/**/bridge*.yml", "compose/bridge*.yml", "fuzz/recipes/*.yml", "docs/*.yml"]:
        files += sorted(glob.glob(os.path.join(ROOT, pattern), recursive=True))
    return files


def embedded_configs(directory):
    """The ```yaml blocks of README.md and docs/*.md that are bridge configs (they begin with
    the yaml-language-server line), each written to a file in `directory`."""
    out = []
    pages = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    for page in pages:
        with open(page) as f:
            text = f.read()
        for n, block in enumerate(re.findall(r"```yaml\n(# yaml-language-server: .*?)```", text, re.S)):
            path = os.path.join(directory, f"{os.path.basename(page)[:-3]}-{n + 1}.yml")
            with open(path, "w") as f:
                f.write(block)
            out.append(path)
    return out


def check_modeline(path):
    with open(path) as f:
        first = f.readline().rstrip("\n")
    m = MODELINE.match(first)
    if not m:
        return [f"{shown(path)}:1: must begin with '# yaml-language-server: $schema=<relative path to docs/bridge.schema.json>'"]
    target = os.path.normpath(os.path.join(os.path.dirname(path), m.group(1)))
    if target != SCHEMA:
        return [f"{shown(path)}:1: $schema={m.group(1)} is not docs/bridge.schema.json"]
    return []


def typo_test(v, binary):
    """Misspell one key per section of bridge.yml; schema and check must both name it."""
    failures = []
    with open(os.path.join(ROOT, "bridge.yml")) as f:
        original = f.read()
    for key, typo in [("host", "hots"), ("push_type", "push_typo"), ("topic", "topci"), ("http", "htp")]:
        pattern = re.compile(r"^(\s*(?:- )?)" + key + r":", re.M)
        if not pattern.search(original):
            failures.append(f"typo test: bridge.yml has no key '{key}' to misspell")
            continue
        text = pattern.sub(lambda m: m.group(1) + typo + ":", original, count=1)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "bridge.yml")
            with open(path, "w") as f:
                f.write(text)
            schema_says = "\n".join(problems(v, path))
            run = subprocess.run([binary, "check", "-c", path], capture_output=True, text=True, timeout=60,
                                 env={**os.environ, "MQTT_HOST": "localhost"})
        named = f"'{typo}'"
        if named not in schema_says:
            failures.append(f"typo test: the schema does not name {named}: {schema_says or 'no error'}")
        if run.returncode != 2 or named not in run.stderr:
            failures.append(f"typo test: pushbridge check (exit {run.returncode}) does not name {named}: {run.stderr.strip()}")
        else:
            schema_line = next(line for line in schema_says.splitlines() if named in line)
            check_line = next(line for line in run.stderr.splitlines() if named in line)
            print(f"typo '{key}' -> '{typo}': schema: {schema_line}")
            print(f"{' ' * (len(key) + len(typo) + 14)}check:  {check_line}")
    return failures


def main(argv):
    collected, binary, files = None, None, []
    i = 0
    while i < len(argv):
        if argv[i] == "--collected":
            collected, i = argv[i + 1], i + 2
        elif argv[i] == "--typo":
            binary, i = argv[i + 1], i + 2
        else:
            files.append(os.path.abspath(argv[i]))
            i += 1
    v = validator()
    failures = []
    if not files:
        for path in repo_configs():
            failures += check_modeline(path) + problems(v, path)
        print(f"schema: {len(repo_configs())} repository configs checked")
    for path in files:
        failures += problems(v, path)
    if not files:
        with tempfile.TemporaryDirectory() as d:
            embedded = embedded_configs(d)
            for path in embedded:
                failures += problems(v, path)
                if binary:
                    checked = subprocess.run([binary, "check", "-c", path], capture_output=True, text=True, timeout=60)
                    if checked.returncode != 0:
                        failures.append(f"{os.path.basename(path)}: pushbridge check: {checked.stderr.strip()}")
            print(f"schema: {len(embedded)} configs shown in README.md and docs/ checked" + (" (and loaded)" if binary else ""))
    if collected:
        valid = sorted(glob.glob(os.path.join(collected, "valid", "*.yml")))
        invalid = sorted(glob.glob(os.path.join(collected, "invalid", "*.yml")))
        for path in valid:
            failures += problems(v, path)
        for path in invalid:
            if not problems(v, path):
                failures.append(f"{path}: the loader rejects it, the schema accepts it")
        if not valid or not invalid:
            failures.append(f"{collected}: no collected configs (run the Swift tests with PUSHBRIDGE_TEST_CONFIGS={collected})")
        print(f"schema: {len(valid)} configs the tests loaded validate, {len(invalid)} they rejected do not")
    if binary:
        failures += typo_test(v, binary)
    for f in failures:
        print(f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
