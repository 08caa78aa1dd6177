#!/usr/bin/env python3
"""The layer check: which folder of Sources/PushBridge uses which, derived from the code.

The executable's files (Sources/pushbridge) are one more node, `pushbridge`, the top layer
above `(root)`: they may use anything in the library, and the library never uses them (the
compiler sees to that; names the executable declares are its own and make no edge). The
command line's library target (Sources/PushBridgeCLI: the `monitor` session and table, the
event-stream client, the stats parser, `try`'s runner and samples) is the node `PushBridgeCLI`
between them.

Reads the allowed order from the README's Architecture section (the line starting with
"Layers (each knows only those before it):") and the C module rule (the line starting with
"C modules (each imported only there):", items `Module → folder` separated by commas; an item
without an arrow is one more folder for the module before it, as in
`COpenSSL → WebPush, pushbridge`), then:

  * collects the top-level declarations of every folder (types, typealiases, functions,
    globals; nested declarations do not count) and the members that extensions add to types
    declared outside the package (such as `Duration.seconds`);
  * strips comments and string literals (keeping the code inside string interpolations) and
    finds, in every file, the identifiers that name a declaration of another folder;
  * prints the folder graph (`-v`: with the names behind each edge and one use of each), and
    fails (exit 1) on an edge against the order or an `import` of a C module outside its
    folder, naming each use (file:line).

A name declared inside a type (`Node` in RouteTable, `Outcome` in StepAttempt) is no
top-level name: in the files holding that type's body or an extension of it, it shadows a
top-level name of another folder, so it makes no edge.

Edges listed in scripts/layer-allow.txt are tolerated (and reported); an entry that no longer
matches an edge fails, so the list only shrinks. Python 3 standard library only.
"""
import os
import re
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = os.path.join(ROOT, "Sources", "PushBridge")
EXECUTABLE = os.path.join(ROOT, "Sources", "pushbridge")
EXECUTABLE_NODE = "pushbridge"
# The command line's library target (Sources/PushBridgeCLI): one more node, between (root) and
# the executable; its declarations are owned like the library's, so the executable's uses count.
CLI = os.path.join(ROOT, "Sources", "PushBridgeCLI")
CLI_NODE = "PushBridgeCLI"
README = os.path.join(ROOT, "README.md")
ALLOW = os.path.join(ROOT, "scripts", "layer-allow.txt")
ROOT_NODE = "(root)"
LAYERS_PREFIX = "Layers (each knows only those before it):"
CMODULES_PREFIX = "C modules (each imported only there):"

DECL = re.compile(r"\b(class|struct|enum|protocol|actor|typealias|func|let|var|extension)\s+([A-Za-z_][A-Za-z0-9_]*)")
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
IMPORT = re.compile(r"^\s*(?:@\w+\s+)*import\s+(?:(?:struct|class|enum|func|var|let)\s+)?([A-Za-z_][A-Za-z0-9_]*)", re.M)


def strip(text):
    """`text` with comments and string literal contents blanked (newlines kept, so line
    numbers hold); the code inside `\\( … )` interpolations is kept."""
    out = []
    i, n = 0, len(text)
    # Stack of contexts: ("code", paren depth) inside an interpolation, or the string's
    # (delimiter, pound count) while inside a string.
    stack = [("code", 0)]

    def blank(s):
        return "".join(c if c == "\n" else " " for c in s)

    while i < n:
        kind = stack[-1][0]
        if kind == "code":
            if text.startswith("//", i):
                j = text.find("\n", i)
                j = n if j < 0 else j
                out.append(blank(text[i:j]))
                i = j
                continue
            if text.startswith("/*", i):
                depth, j = 1, i + 2
                while j < n and depth:
                    if text.startswith("/*", j):
                        depth, j = depth + 1, j + 2
                    elif text.startswith("*/", j):
                        depth, j = depth - 1, j + 2
                    else:
                        j += 1
                out.append(blank(text[i:j]))
                i = j
                continue
            m = re.compile(r'(#*)("""|")').match(text, i)
            if m and (m.group(1) == "" or text[i] == "#"):
                pounds = len(m.group(1))
                stack.append((m.group(2), pounds))
                out.append(" " * (m.end() - i))
                i = m.end()
                continue
            c = text[i]
            if len(stack) > 1:
                depth = stack[-1][1]
                if c == "(":
                    stack[-1] = ("code", depth + 1)
                elif c == ")":
                    if depth == 0:  # the interpolation ends
                        stack.pop()
                        out.append(" ")
                        i += 1
                        continue
                    stack[-1] = ("code", depth - 1)
            out.append(c)
            i += 1
            continue
        delim, pounds = stack[-1]
        escape = "\\" + "#" * pounds
        if text.startswith(escape + "(", i):
            stack.append(("code", 0))
            out.append(" " * (len(escape) + 1))
            i += len(escape) + 1
            continue
        if text.startswith(escape, i) and i + len(escape) < n:
            out.append(blank(text[i:i + len(escape) + 1]))
            i += len(escape) + 1
            continue
        end = delim + "#" * pounds
        if text.startswith(end, i):
            stack.pop()
            out.append(" " * len(end))
            i += len(end)
            continue
        out.append("\n" if text[i] == "\n" else " ")
        i += 1
    return "".join(out)


def braces(code):
    """For each position of `code`, the brace depth there."""
    depth, depths = 0, []
    for c in code:
        if c == "}":
            depth -= 1
        depths.append(depth)
        if c == "{":
            depth += 1
    return depths


class SourceFile:
    def __init__(self, path, executable=False, node=None):
        self.path = path
        self.rel = os.path.relpath(path, ROOT)
        self.executable = executable
        if executable:
            self.folder = EXECUTABLE_NODE
        elif node:
            self.folder = node
        else:
            folder = os.path.dirname(os.path.relpath(path, SOURCES))
            self.folder = folder.replace(os.sep, "/") or ROOT_NODE
        with open(path, encoding="utf-8") as f:
            self.text = f.read()
        self.code = strip(self.text)
        self.depths = braces(self.code)
        self.top = {}          # name -> kind, for declarations at brace depth 0
        self.local = set()     # every name this file declares, at any depth
        self.extended = []     # (type, body start, body end) of top-level extensions
        self.bodies = []       # (type, body start, body end) of top-level types and extensions
        self.imports = [(m.group(1), self.line(m.start(1))) for m in IMPORT.finditer(self.code)]
        for m in DECL.finditer(self.code):
            kind, name = m.group(1), m.group(2)
            if kind != "extension":
                self.local.add(name)
            if self.depths[m.start()] != 0:
                continue
            if kind in ("class", "struct", "enum", "protocol", "actor", "extension"):
                start = self.code.find("{", m.end())
                end = start
                while end < len(self.code) and not (self.code[end] == "}" and self.depths[end] == 0):
                    end += 1
                self.bodies.append((name, start, end))
                if kind == "extension":
                    self.extended.append((name, start, end))
            if kind != "extension":
                self.top[name] = kind

    def nested(self):
        """type -> the names declared inside its body (or its extensions' bodies) here."""
        found = defaultdict(set)
        for type_name, start, end in self.bodies:
            for m in DECL.finditer(self.code, start, end):
                if m.group(1) != "extension":
                    found[type_name].add(m.group(2))
        return found

    def line(self, pos):
        return self.text.count("\n", 0, pos) + 1

    def members_of_extensions(self, types):
        """Members declared directly inside this file's extensions of `types`: (name, kind)
        pairs."""
        found = []
        for type_name, start, end in self.extended:
            if type_name not in types:
                continue
            for m in DECL.finditer(self.code, start, end):
                if self.depths[m.start()] == 1 and m.group(1) in ("func", "var", "let"):
                    found.append((m.group(2), m.group(1)))
        return found


def read_readme():
    with open(README, encoding="utf-8") as f:
        text = f.read()
    section = re.search(r"^## Architecture\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    body = section.group(1) if section else ""

    def find(prefix):
        for line in body.splitlines():
            line = line.strip().strip("`")
            if line.startswith(prefix):
                return line[len(prefix):].strip().strip("`").strip()
        sys.exit(f"layer check: README.md's Architecture section has no line starting with "
                 f"'{prefix}'; it is where the check reads its rule from.")

    layers = [part.strip().strip("`") for part in find(LAYERS_PREFIX).split("→")]
    modules = {}                    # module -> the folders that may import it
    module = None
    for item in find(CMODULES_PREFIX).split(","):
        name, arrow, folder = item.partition("→")
        if not arrow:               # one more folder for the module before
            name, folder = module, name
        module = name.strip().strip("`")
        modules.setdefault(module, []).append(folder.strip().strip("`").rstrip("."))
    return layers, modules


def read_allow():
    allowed = {}
    if not os.path.exists(ALLOW):
        return allowed
    with open(ALLOW, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if line:
                user, _, used = line.partition("->")
                allowed[(user.strip(), used.strip())] = number
    return allowed


def print_graph(layers, rank, folders, uses, tolerated):
    """The folder graph: for each folder, the folders it uses, with how many of their names
    it uses and how many uses there are."""
    print("layers: " + " → ".join(layers))
    print("folder graph (user -> used names/uses):")
    for folder in folders:
        edges = sorted(((used, names) for (user, used), names in uses.items() if user == folder),
                       key=lambda e: rank.get(e[0], -1), reverse=True)
        if not edges:
            print(f"  {folder}: (nothing)")
            continue
        parts = []
        for used, names in edges:
            mark = " [allowed for now]" if (folder, used) in tolerated else ""
            parts.append(f"{used} {len(names)}/{sum(c for _, c in names.values())}{mark}")
        print(f"  {folder} -> " + ", ".join(parts))
        if "-v" in sys.argv:
            for used, names in edges:
                print(f"      {used}: " + ", ".join(f"{n} ({w})" for n, (w, _) in sorted(names.items())))


def main():
    layers, modules = read_readme()
    rank = {name: i for i, name in enumerate(layers)}
    files = []
    for top, executable, node in ((SOURCES, False, None), (CLI, False, CLI_NODE), (EXECUTABLE, True, None)):
        for directory, _, names in os.walk(top):
            files += [SourceFile(os.path.join(directory, n), executable, node)
                      for n in sorted(names) if n.endswith(".swift")]
    files.sort(key=lambda f: (f.executable, f.rel))
    library = [f for f in files if not f.executable]
    problems = []

    # Who declares what at the top level (in the library: the executable's names are its own).
    owner = {}                      # name -> folder
    for f in library:
        for name in f.top:
            owner.setdefault(name, f.folder)
    own_executable = {name for f in files if f.executable for name in f.top}
    functions = {name for f in library for name, kind in f.top.items() if kind in ("func", "let", "var")}
    types = set(owner) - functions
    # Members that extensions add to types from outside the package (`Duration.seconds`) or
    # to a type of another folder (Mapping's `NotificationContent.jsonValue`), found as
    # `.name` (`.name(` for a function); a name some other type also declares is left out.
    members = {}                    # name -> (folder, kind)
    for f in library:
        outside = {t for t, _, _ in f.extended if owner.get(t, f.folder) != f.folder or t not in types}
        for name, kind in f.members_of_extensions(outside):
            members.setdefault(name, (f.folder, kind))
    for f in library:
        for _, start, end in f.bodies:
            for m in DECL.finditer(f.code, start, end):
                name = m.group(2)
                if f.depths[m.start()] == 1 and name in members and members[name][0] != f.folder:
                    del members[name]

    # Names nested in a type shadow top-level names of other folders wherever the type's
    # body is: in its own file and in every file that extends it (`Node` inside RouteTable
    # is not Language's `Node`).
    nested = defaultdict(set)
    for f in library:
        for type_name, names in f.nested().items():
            nested[type_name] |= names

    # Uses: (user folder, used folder) -> name -> [file:line, count]
    uses = defaultdict(lambda: defaultdict(lambda: [None, 0]))
    for f in files:
        shadowed = set(f.local) - set(f.top)
        if f.executable:
            shadowed |= own_executable
        for type_name, _, _ in f.bodies:
            shadowed |= nested[type_name]
        for m in IDENT.finditer(f.code):
            name, start = m.group(), m.start()
            before = f.code[start - 1] if start else " "
            after = f.code[m.end():m.end() + 1]
            used = None
            if before == ".":
                # `d.components.seconds` is the tuple's label, not a member of ours.
                if name in members and not f.code[:start - 1].endswith("components"):
                    folder, kind = members[name]
                    if (kind == "func") == (after == "("):
                        used = folder
            elif name in owner and name not in shadowed and before not in "#@$":
                used = owner[name]
            if used is None or used == f.folder:
                continue
            entry = uses[(f.folder, used)][name]
            if entry[0] is None:
                entry[0] = f"{f.rel}:{f.line(start)}"
            entry[1] += 1

    folders = sorted({f.folder for f in files}, key=lambda x: (rank.get(x, -1), x))
    for folder in folders:
        if folder not in rank:
            problems.append(f"folder {folder} is not in the README's Layers line: add it where it belongs in the flow")

    allowed = read_allow()
    tolerated = []
    against = []
    for (user, used), names in sorted(uses.items(), key=lambda e: (rank.get(e[0][0], -1), rank.get(e[0][1], -1))):
        if user not in rank or used not in rank or rank[used] < rank[user]:
            continue
        if (user, used) in allowed:
            tolerated.append((user, used))
            continue
        detail = "\n".join(f"      {name}  ({where}{', %d uses' % count if count > 1 else ''})"
                           for name, (where, count) in sorted(names.items()))
        against.append(f"  {user} -> {used}: {user} comes before {used} in the flow but uses\n{detail}")
    for (user, used), number in sorted(allowed.items()):
        if (user, used) not in uses or rank.get(used, -1) < rank.get(user, -1):
            problems.append(f"scripts/layer-allow.txt:{number}: '{user} -> {used}' is no longer an edge "
                            f"against the flow: delete the line")

    for f in files:
        for module, line in f.imports:
            if module in modules and f.folder not in modules[module]:
                problems.append(f"{f.rel}:{line}: imports {module}, which only {' and '.join(modules[module])} may import "
                                f"(README: '{CMODULES_PREFIX}')")
            elif module.startswith("C") and module not in modules:
                problems.append(f"{f.rel}:{line}: imports {module}, a C module the README's "
                                f"'{CMODULES_PREFIX}' line does not name")

    print_graph(layers, rank, folders, uses, tolerated)
    if against or problems:
        if against:
            print("layer check FAILED: edges against the flow written in README.md (Architecture, "
                  f"'{LAYERS_PREFIX}'):")
            print("\n".join(against))
            print("  Each name is declared in a later layer than the file that uses it. Fix by moving the "
                  "declaration down\n  (into the user's folder or an earlier one), by moving the use up, or "
                  "by passing a value or a\n  closure in from the later layer. If the flow itself should "
                  "change, change the README's Layers line.")
        if problems:
            print("layer check FAILED:" if not against else "and:")
            print("\n".join(f"  {p}" for p in problems))
        return 1

    if tolerated:
        print("against the flow but tolerated by scripts/layer-allow.txt: "
              + ", ".join(f"{u} -> {v}" for u, v in tolerated))
    print("layer check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
