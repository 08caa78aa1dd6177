#!/usr/bin/env python3
"""The public API check: counts the `public`/`open` declarations of Sources/PushBridge (what a
program embedding the library sees; everything the package's own targets share is `package`)
and fails (exit 1) on one without a doc comment (`///` or `*/` on the line above, attributes
skipped), naming each (file:line). Python 3 standard library only."""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = os.path.join(ROOT, "Sources", "PushBridge")
DECL = re.compile(r"^\s*(?:@[\w.]+(?:\([^)]*\))?\s+)*(?:public|open)(?:\([^)]*\))?\s+"
                  r"(?:(?:static|final|class|override|mutating|nonisolated|convenience|required|indirect|lazy|"
                  r"private\(set\)|internal\(set\)|package\(set\)|weak|unowned)\s+)*"
                  r"(class|struct|enum|protocol|actor|typealias|func|let|var|init|subscript|extension|associatedtype)\b")


def main():
    count, undocumented = 0, []
    for directory, _, names in sorted(os.walk(SOURCES)):
        for name in sorted(n for n in names if n.endswith(".swift")):
            path = os.path.join(directory, name)
            with open(path, encoding="utf-8") as f:
                lines = f.read().split("\n")
            for i, line in enumerate(lines):
                if not DECL.match(line):
                    continue
                count += 1
                j = i - 1
                while j >= 0 and lines[j].strip().startswith("@"):
                    j -= 1
                above = lines[j].strip() if j >= 0 else ""
                if not (above.startswith("///") or above.endswith("*/")):
                    undocumented.append(f"{os.path.relpath(path, ROOT)}:{i + 1}: {line.strip()[:100]}")
    print(f"public API: {count} public/open declarations in Sources/PushBridge")
    if undocumented:
        print(f"public API check FAILED: {len(undocumented)} without a doc comment:")
        for u in undocumented:
            print("  " + u)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
