#!/usr/bin/env python3
"""The layer check: which folder of Sources/PushBridge uses which, derived from the code.

The executable's files (Sources/pushbridge) are one more node, `pushbridge`, the top layer
above the library's rooms: they may use anything in the library, and the library never uses them (the
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
matches an edge fails, so the list only shrinks.

Four more rules, each printing its count on every run (after the graph) and failing (exit 1)
when the count is not 0, listing each offender (file:line and the name) and what to do:

  1. Root files: every file lives in its room. A `.swift` file directly in Sources/PushBridge
     (not in a subfolder) is an offender: move it into the folder of its layer.
  2. Adapter names above the adapter: ADAPTER (Broker/Mosquitto, the wrapper of the C client
     library) is used only by ADAPTER_USERS (Broker), which turns it into the bridge's own
     terms. A use of a name the adapter declares (a top-level declaration, or a member its
     extensions add; found as the graph finds uses) from any other folder, the command line's
     library Sources/PushBridgeCLI or the executable Sources/pushbridge is an offender: give
     Broker a name of its own for it, or move the use into Broker. (When the layout moves
     them, an ADAPTER or ADAPTER_USERS folder that no longer exists fails the check: update
     the constants.)
  3. `package` declarations no other target uses: `package` is Swift's access level for
     "visible to the package's other targets", so a `package` declaration (top level or member;
     attributes and other modifiers may come before or after the keyword; `package(set)` alone
     is not one) that no other target uses should be internal. The other targets: for
     Sources/PushBridge, Sources/PushBridgeCLI, Sources/pushbridge, examples/swift-extension
     and Plugins/; for Sources/PushBridgeCLI, Sources/pushbridge and examples/swift-extension
     (PACKAGE_TARGETS; Tests/ and fuzz/ do not count: `@testable import` sees internal). A
     declaration is used when its name appears as an identifier in the code of one of them
     (comments and strings stripped; any identifier equal to the name counts: deliberately
     conservative); an `init` when its type's name does (or the code writes `.init(…)` without
     a type), a `subscript` when its type's name does, an operator when the operator does, a
     `package extension` when one of its members' names does. What a used declaration shows
     its users must be at least as visible as it is, so a declaration of the same target whose
     name its signature holds (parameter and result types, default arguments, a property's
     type, a typealias's target, inheritance, an enum's associated values, a protocol's
     requirements; not parameter names) counts as used too (`-v` lists these with the one
     that names them). A declaration that must stay `package` although nothing names it (a
     protocol witness, a member a public or package protocol requires, one a `package`
     inlinable function uses) carries the comment `// package: <reason>` on its line or on a
     comment line just above it (above its attributes when they stand on lines of their own);
     it is counted as kept (`-v` lists them with their reasons). `--fix-package` removes the
     keyword from every unused one in place (they become internal; `package(set)` is left
     alone), prints how many it changed and then runs the check; build, and give the ones the
     compiler wants `package` back their keyword with the comment.
  4. SPEC: the word `SPEC` (a word: `AF_UNSPEC` is not it) anywhere in Sources/ or Tests/,
     comments and strings included: the code must not cite a document its readers do not
     have. Say it in your own words or point to docs/.

Python 3 standard library only.
"""
import bisect
import os
import re
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = os.path.join(ROOT, "Sources", "PushBridge")
EXECUTABLE = os.path.join(ROOT, "Sources", "pushbridge")
EXECUTABLE_NODE = "pushbridge"
# The command line's library target (Sources/PushBridgeCLI): one more node, between the library's
# rooms and the executable; its declarations are owned like the library's, so the executable's uses count.
CLI = os.path.join(ROOT, "Sources", "PushBridgeCLI")
CLI_NODE = "PushBridgeCLI"
README = os.path.join(ROOT, "README.md")
ALLOW = os.path.join(ROOT, "scripts", "layer-allow.txt")
# A file directly in Sources/PushBridge (none may be: every file lives in its room).
ROOT_NODE = "(root)"
LAYERS_PREFIX = "Layers (each knows only those before it):"
CMODULES_PREFIX = "C modules (each imported only there):"
# Rule 2: the adapter folder (relative to Sources/PushBridge, with its subfolders) and the
# folders that may use its names.
ADAPTER = "Broker/Mosquitto"
ADAPTER_USERS = {"Broker"}
# Rule 3: each target whose `package` declarations are checked, and the other targets that see
# them (folders relative to the repository).
PACKAGE_TARGETS = [
    ("Sources/PushBridge", ["Sources/PushBridgeCLI", "Sources/pushbridge", "examples/swift-extension", "Plugins"]),
    ("Sources/PushBridgeCLI", ["Sources/pushbridge", "examples/swift-extension"]),
]
PACKAGE_KEEP = re.compile(r"//\s*package:\s*(\S.*?)\s*(?:\*/)?\s*$")
# Rule 4
SPEC_FOLDERS = ["Sources", "Tests"]
SPEC_WORD = re.compile(r"(?<![A-Za-z0-9_])SPEC(?![A-Za-z0-9_])")

DECL = re.compile(r"\b(class|struct|enum|protocol|actor|typealias|func|let|var|extension)\s+([A-Za-z_][A-Za-z0-9_]*)")
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
IMPORT = re.compile(r"^\s*(?:@\w+\s+)*import\s+(?:(?:struct|class|enum|func|var|let)\s+)?([A-Za-z_][A-Za-z0-9_]*)", re.M)


STRING_START = re.compile(r'(#*)("""|")')
_read = {}                          # path -> (text, stripped code)


def read_code(path):
    """The text of a file and its code (`strip`ped), read once."""
    if path not in _read:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        _read[path] = (text, strip(text))
    return _read[path]


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
            m = STRING_START.match(text, i)
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
        self.text, self.code = read_code(path)
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


# Rule 3: the `package` keyword as an access modifier (not `package(set)`, not a name such as
# `x.package`), the attributes and modifiers that may follow it, the declaration's keyword and
# its name.
PACKAGE_WORD = re.compile(r"(?<![\w.`$@#])package\b(?!\s*\()")
MODIFIER = re.compile(
    r"\s*(?:@[A-Za-z_][\w.]*(?:\([^()]*\))?"
    r"|(?:private|fileprivate|internal|public|open|nonisolated|unowned)\s*\(\s*\w+\s*\)"
    r"|class(?=\s+(?:func|var|let|subscript|static|final|override|nonisolated|required|convenience)\b)"
    r"|(?:static|final|nonisolated|mutating|nonmutating|convenience|override|lazy|required|dynamic|optional"
    r"|indirect|weak|unowned|distributed|prefix|postfix|infix|isolated|consuming|borrowing)\b)")
DECL_KIND = re.compile(r"\s*(func|var|let|init|subscript|struct|enum|class|protocol|typealias|actor|extension|macro)\b")
OPERATOR_CHARS = "-+*/%<>=!&|^~?."
DECL_NAME = re.compile(r"\s*(`?[A-Za-z_]\w*`?|[-+*/%<>=!&|^~?.]+|\([^)]*\))")
TYPE_BODY = re.compile(r"(?<![\w.])(class|struct|enum|protocol|actor|extension)\s+([A-Za-z_][\w.]*)")
NOT_A_TYPE_NAME = {"func", "var", "let", "subscript", "static", "final", "override", "nonisolated",
                   "required", "convenience", "init"}
ATTRIBUTE_LINE = re.compile(r"^\s*(?:@[A-Za-z_][\w.]*(?:\([^()]*\))?\s*)+$")


class PackageDeclaration:
    """One `package` declaration: where (`pos`: the keyword's offset), what (`label`, as in
    `package static func bar`), the names another target must name for it to count as used,
    and the reason given to keep it (`// package: <reason>`), if any."""

    def __init__(self, path, pos, line, keyword, label, names, operator, keep, signature):
        self.path, self.pos, self.line = path, pos, line
        self.rel = os.path.relpath(path, ROOT)
        self.keyword, self.label, self.names, self.operator, self.keep = keyword, label, names, operator, keep
        self.signature = signature  # the identifiers of what its users see (parameters, type, …)
        self.used = False           # named by another target
        self.needed_by = None       # the used declaration whose signature names it


def swift_files(folder):
    """The .swift files under `folder` (relative to the repository), sorted."""
    found = []
    for directory, dirs, names in os.walk(os.path.join(ROOT, folder)):
        dirs.sort()
        found += [os.path.join(directory, n) for n in sorted(names) if n.endswith(".swift")]
    return found


def signature_names(signature, keyword):
    """The names a signature needs visible: without parameter names and labels (`(port: Int`,
    `, at date: Date`) and, in a property's initial value (which its users do not see, but
    for its type), without members written `.name` (`= .skip`; a nested type, `.Kind`,
    stays). A function's default arguments are seen by its callers: they stay."""
    signature = re.sub(r"(?<=[(,])\s*[A-Za-z_]\w*(?:\s+[A-Za-z_]\w*)?\s*:", " ", signature)
    if keyword in ("var", "let"):
        signature = re.sub(r"\.\s*[a-z_]\w*", " ", signature)
    return set(IDENT.findall(signature))


def case_types(cases):
    """An enum's `case a, b(X), c = 1` without the case names: what its users see of it."""
    out, depth, start = [], 0, True
    for token in re.finditer(r"[A-Za-z_]\w*|.", cases):
        t = token.group()
        if t in "([":
            depth += 1
        elif t in ")]":
            depth -= 1
        elif t == "," and depth == 0:
            start = True
            continue
        if start and (t[0].isalpha() or t[0] == "_"):
            start = False           # the case's name
            continue
        out.append(t)
    return "".join(out)


def attributes_start(code_lines, first):
    """The first of the lines (0-based) holding only attributes just above line `first`, or
    `first`."""
    j = first
    while j > 0 and ATTRIBUTE_LINE.match(code_lines[j - 1]):
        j -= 1
    return j


def package_declarations(path):
    """The `package` declarations of one file (rule 3)."""
    text, code = read_code(path)
    depths = braces(code)
    text_lines, code_lines = text.split("\n"), code.split("\n")
    line_starts = [0] + [i + 1 for i, c in enumerate(code) if c == "\n"]

    def line_of(pos):
        return bisect.bisect_right(line_starts, pos)

    # Every type and extension body, nested ones too: (type name, `{`, `}`).
    bodies = []
    for m in TYPE_BODY.finditer(code):
        if m.group(2) in NOT_A_TYPE_NAME:
            continue
        start = code.find("{", m.end())
        if start < 0:
            continue
        end = start + 1
        while end < len(code) and not (code[end] == "}" and depths[end] == depths[start]):
            end += 1
        bodies.append((m.group(2).split(".")[-1], start, end))

    def enclosing_type(pos):
        inside = [b for b in bodies if b[1] < pos < b[2]]
        return max(inside, key=lambda b: b[1])[0] if inside else None

    found = []
    for m in PACKAGE_WORD.finditer(code):
        i = m.end()
        while True:
            modifier = MODIFIER.match(code, i)
            if not modifier:
                break
            i = modifier.end()
        kind = DECL_KIND.match(code, i)
        if not kind:
            continue
        keyword = kind.group(1)
        operator = False
        if keyword in ("init", "subscript"):
            owner = enclosing_type(m.start())
            names = ({owner, ".init"} if keyword == "init" else {owner}) if owner else set()
            name, end = f"{keyword} ({owner or '?'})", kind.end()
        else:
            named = DECL_NAME.match(code, kind.end())
            if not named:
                continue
            name, end = named.group(1), named.end()
            if name.startswith("("):            # `package let (a, b) = …`
                names = set(IDENT.findall(name))
            elif name[0] in OPERATOR_CHARS:
                names, operator = {name}, True
            else:
                names = {name.strip("`")}
            if keyword == "extension":
                # A `package extension` is used when a member it declares is.
                start = code.find("{", end)
                if start >= 0:
                    body = next((b for b in bodies if b[1] == start), None)
                    members = {d.group(2) for d in DECL.finditer(code, start, body[2] if body else len(code))
                               if depths[d.start()] == depths[start] + 1}
                    if re.search(r"\b(init|subscript)\b", code[start:body[2] if body else len(code)]):
                        members.add(name.split(".")[-1])
                    names = members or names
                name = name.split(".")[-1]
        modifiers = [w for w in code[m.end():kind.start()].split() if not w.startswith("@")]
        label = " ".join(["package"] + modifiers + ([] if keyword in ("init", "subscript") else [keyword]) + [name])
        first, last = line_of(m.start()) - 1, line_of(end) - 1
        # The signature: what a user of the declaration sees (generic parameters, parameters,
        # type, initial value, raw type, inheritance), up to its body, or for a property or a
        # typealias the end of the line; a protocol's requirements and an enum's cases too,
        # and an inlinable function's body.
        j, depth = end, 0
        while j < len(code):
            c = code[j]
            if c in "([":
                depth += 1
            elif c in ")]":
                depth -= 1
            elif depth <= 0 and (c in "{};" or (c == "\n" and keyword in ("var", "let", "typealias"))):
                break
            j += 1
        signature = code[kind.start():j]
        if j < len(code) and code[j] == "{":
            body = next((b for b in bodies if b[1] == j), None)
            close = body[2] if body else j
            if not body:            # a function's body: to its brace
                close = j + 1
                while close < len(code) and not (code[close] == "}" and depths[close] == depths[j]):
                    close += 1
            attributes = code[line_starts[attributes_start(code_lines, first)]:kind.start()]
            if keyword == "protocol" or "@inlinable" in attributes:
                signature += code[j:close]
            elif keyword == "enum":
                cases = re.finditer(r"\bcase\b([^\n]*)", code[j:close])
                signature += " ".join(case_types(c.group(1)) for c in cases if depths[j + c.start()] == depths[j] + 1)
        # The marker: on the declaration's lines, on attribute lines of their own above them,
        # or on a comment line just above those.
        j = attributes_start(code_lines, first) - 1
        candidates = list(range(j + 1, last + 1))
        if j >= 0 and not code_lines[j].strip():
            candidates.insert(0, j)
        keep = None
        for c in candidates:
            marker = PACKAGE_KEEP.search(text_lines[c])
            if marker:
                keep = marker.group(1)
                break
        found.append(PackageDeclaration(path, m.start(), first + 1, keyword, label, names, operator, keep,
                                        signature_names(signature, keyword) - names))
    return found


def package_check():
    """Rule 3: every `package` declaration of PACKAGE_TARGETS, each marked used or not."""
    declarations = []
    for target, others in PACKAGE_TARGETS:
        found = []
        identifiers, code = set(), []
        for folder in others:
            for path in swift_files(folder):
                stripped = read_code(path)[1]
                identifiers |= set(IDENT.findall(stripped))
                code.append(stripped)
        code = "\n".join(code)
        # `.init(…)` of a type the code does not name (`options.tls = .init(…)`): every
        # initialiser counts as used then.
        if re.search(r"(?:^|[^\w)\]?!\s.`])[ \t]*\.init\b", code, re.M):
            identifiers.add(".init")
        for path in swift_files(target):
            for d in package_declarations(path):
                if d.operator:
                    chars = re.escape(OPERATOR_CHARS)
                    op = re.escape(next(iter(d.names)))
                    d.used = re.search(rf"(?<![{chars}]){op}(?![{chars}])", code) is not None
                else:
                    d.used = not d.names or bool(d.names & identifiers)
                found.append(d)
        # What a used (or kept) declaration's signature names must be as visible as it is:
        # such a declaration of this target counts as used too, and so on.
        live = [d for d in found if d.used or d.keep is not None]
        while live:
            named = set().union(*(d.signature for d in live))
            live = []
            for d in found:
                if (not d.used and d.keep is None and d.needed_by is None and not d.operator
                        and d.keyword not in ("init", "subscript", "extension") and d.names & named):
                    d.needed_by = next(u for u in found if (u.used or u.keep is not None or u.needed_by)
                                       and u is not d and u.signature & d.names)
                    live.append(d)
        declarations += found
    return declarations


def fix_package(unused):
    """Removes the `package` keyword (and the blanks after it) of each of `unused`, in place;
    returns how many it changed and in how many files."""
    by_file = defaultdict(list)
    for d in unused:
        by_file[d.path].append(d.pos)
    changed = 0
    for path, positions in sorted(by_file.items()):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for pos in sorted(positions, reverse=True):
            if not text.startswith("package", pos):
                continue
            end = pos + len("package")
            while end < len(text) and text[end] in " \t":
                end += 1
            text = text[:pos] + text[end:]
            changed += 1
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return changed, len(by_file)


def spec_check():
    """Rule 4: (file, line, mentions, the line) for every line of Sources/ and Tests/ that says
    SPEC."""
    found = []
    for folder in SPEC_FOLDERS:
        for directory, dirs, names in os.walk(os.path.join(ROOT, folder)):
            dirs.sort()
            for n in sorted(names):
                path = os.path.join(directory, n)
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                for number, line in enumerate(text.split("\n"), 1):
                    count = len(SPEC_WORD.findall(line))
                    if count:
                        found.append((os.path.relpath(path, ROOT), number, count, line.strip()))
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


def in_adapter(folder):
    return folder == ADAPTER or folder.startswith(ADAPTER + "/")


def main():
    verbose = "-v" in sys.argv
    if "--fix-package" in sys.argv:
        unused = [d for d in package_check() if not d.used and d.keep is None and not d.needed_by]
        changed, in_files = fix_package(unused)
        _read.clear()
        print(f"--fix-package: removed `package` from {changed} declarations in {in_files} files "
              f"(they are internal now); build, and give the ones that must stay `package` back "
              f"their keyword with a `// package: <reason>` comment")
    layers, modules = read_readme()
    rank = {name: i for i, name in enumerate(layers)}
    files = []
    for top, executable, node in ((SOURCES, False, None), (CLI, False, CLI_NODE), (EXECUTABLE, True, None)):
        files += [SourceFile(path, executable, node) for path in swift_files(top)]
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
    adapter_uses = []               # rule 2: (file:line, name, the adapter's folder)
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
            if in_adapter(used) and not in_adapter(f.folder) and f.folder not in ADAPTER_USERS:
                adapter_uses.append((f"{f.rel}:{f.line(start)}", name, used))
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

    # The adapter and the folders that may use it must exist (a layout change renames them here).
    for folder in [ADAPTER] + sorted(ADAPTER_USERS):
        if not os.path.isdir(os.path.join(SOURCES, folder)):
            problems.append(f"Sources/PushBridge/{folder} does not exist: scripts/layer-check.py's ADAPTER "
                            f"and ADAPTER_USERS name the adapter and its users; update them")

    # Rule 1: root files.
    root_files = [f for f in library if f.folder == ROOT_NODE]
    # Rule 3: `package` declarations.
    declarations = package_check()
    used = [d for d in declarations if d.used]
    needed = [d for d in declarations if d.needed_by]
    kept = [d for d in declarations if not d.used and d.keep is not None]
    unused = [d for d in declarations if not d.used and d.keep is None and not d.needed_by]
    # Rule 4: SPEC.
    specs = spec_check()
    spec_count = sum(count for _, _, count, _ in specs)

    print_graph(layers, rank, folders, uses, tolerated)
    print(f"root files: {len(root_files)}")
    print(f"adapter names used above the adapter: {len(adapter_uses)}")
    print(f"package declarations: {len(declarations)} ({len(used)} used by another target, "
          f"{len(needed)} named by a used one's signature, {len(kept)} kept with a reason, {len(unused)} unused)")
    print(f"package declarations no other target uses: {len(unused)}"
          + (f" ({len(kept)} more kept with a reason)" if kept else ""))
    print(f"SPEC mentions in Sources/ and Tests/: {spec_count}")

    failed = bool(against or problems or root_files or adapter_uses or unused or spec_count)
    if failed:
        print("layer check FAILED:")
    if against:
        print("edges against the flow written in README.md (Architecture, "
              f"'{LAYERS_PREFIX}'):")
        print("\n".join(against))
        print("  Each name is declared in a later layer than the file that uses it. Fix by moving the "
              "declaration down\n  (into the user's folder or an earlier one), by moving the use up, or "
              "by passing a value or a\n  closure in from the later layer. If the flow itself should "
              "change, change the README's Layers line.")
    if problems:
        print("\n".join(f"  {p}" for p in problems))
    if root_files:
        print(f"root files ({len(root_files)}): every file lives in its room; move each into the folder of "
              "its layer (Sources/PushBridge/<folder>/):")
        for f in root_files:
            what = [f"declares {', '.join(sorted(f.top))}"] if f.top else []
            what += [f"extends {', '.join(sorted({t for t, _, _ in f.extended}))}"] if f.extended else []
            print(f"  {f.rel}:1: {f.rel.rsplit('/', 1)[-1]}" + (f" ({'; '.join(what)})" if what else ""))
    if adapter_uses:
        print(f"adapter names used above the adapter ({len(adapter_uses)}): only "
              f"{' and '.join(sorted(ADAPTER_USERS))} may use the names {ADAPTER} declares; give "
              f"{' or '.join(sorted(ADAPTER_USERS))} a name of its own for each, or move the use there:")
        for where, name, folder in adapter_uses:
            print(f"  {where}: {name} (declared in {folder})")
    if unused:
        print(f"package declarations no other target uses ({len(unused)}): `package` is for what the package's "
              "other targets use; `--fix-package`\n  removes the keyword from all of these. One that must stay "
              "`package` (a protocol witness, a requirement of a public or\n  package protocol, one a `package` "
              "inlinable function uses) says why: `// package: <reason>` on its line or a\n  comment line just "
              "above it.")
        for d in unused:
            print(f"  {d.rel}:{d.line}: {d.label} — no other target uses it: make it internal")
    if verbose and needed:
        print(f"package declarations a used one's signature names ({len(needed)}; they stay `package`):")
        for d in needed:
            u = d.needed_by
            print(f"  {d.rel}:{d.line}: {d.label} — named by {u.label} ({u.rel}:{u.line})")
    if verbose and kept:
        print(f"package declarations kept with a reason ({len(kept)}):")
        for d in kept:
            print(f"  {d.rel}:{d.line}: {d.label} — {d.keep}")
    if spec_count:
        print(f"SPEC mentions in Sources/ and Tests/ ({spec_count}): the code must not cite a document its "
              "readers do not have;\n  say it in your own words or point to docs/:")
        for rel, number, count, line in specs:
            print(f"  {rel}:{number}: SPEC{f' ({count} mentions)' if count > 1 else ''}: {line[:100]}")
    if failed:
        return 1

    if tolerated:
        print("against the flow but tolerated by scripts/layer-allow.txt: "
              + ", ".join(f"{u} -> {v}" for u, v in tolerated))
    print("layer check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
