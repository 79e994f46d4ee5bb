#!/usr/bin/env python3
"""The repository stands alone and its comments describe the code, not its history: lists every
line of a tracked text file that sends the reader outside the repository (../shared, DESIGN.md,
research notes, the CLI.md contract that lives in docs/cli.md), or dates the code ("issue 21",
"used to"). Exits 1 when there is one.

    scripts/check_standalone.py [ROOT]"""
import re
import subprocess
import sys

OUTSIDE = re.compile(r"\.\./shared|\bDESIGN\.md\b|\bresearch/[\w-]+\.md\b|\bCLI\.md\b|"
                     r"\bseeds/[\w-]+|\bpeers/[\w-]+\.md\b")
HISTORY = re.compile(r"\bissues? #?\d+\b|(?<!\bis )(?<!\bare )(?<!\bbe )(?<!\bwas )(?<!\bwere )"
                     r"(?<!\bbeing )(?<!\bbeen )\bused to\b", re.IGNORECASE)
TEXT = (".cpp", ".h", ".py", ".pyi", ".md", ".txt", ".cmake", ".sh", ".json", ".toml", ".qss",
        ".inc", ".in", ".html")


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    files = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True,
                           check=True).stdout.split("\n")
    bad = 0
    for name in files:
        if not name.endswith(TEXT) and not name.endswith("CMakeLists.txt"):
            continue
        if name == "scripts/check_standalone.py":
            continue
        try:
            lines = open("%s/%s" % (root, name), encoding="utf-8").read().split("\n")
        except (OSError, UnicodeDecodeError):
            continue
        for number, line in enumerate(lines, 1):
            for kind, pattern in (("outside the repository", OUTSIDE), ("history", HISTORY)):
                if pattern.search(line):
                    print("%s:%d: %s: %s" % (name, number, kind, line.strip()[:140]))
                    bad += 1
    print("%d line(s) found" % bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
