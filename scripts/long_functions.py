#!/usr/bin/env python3
"""Lists the C++ functions longer than a limit (default 120 lines) under the given folders, and
exits 1 when one is not among the named exceptions (data tables, whose length is their data).

    scripts/long_functions.py [--limit N] [--exceptions FILE] DIR...

A function is a brace block at namespace level (or a member function inside a class body) whose
head has a parameter list; its length runs from its head's line to its closing brace. Comments,
string and character literals are blanked first, so braces inside them do not count."""
import argparse
import os
import re
import sys

HEAD_SKIP = re.compile(r"\b(namespace|class|struct|enum|union|extern)\b")


def blank(text):
    """Comments, strings and chars replaced by spaces (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = ")" + m.group(1) + '"'
            j = text.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(" " * (min(j + 1, n) - i))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(path):
    text = blank(open(path, encoding="utf-8", errors="replace").read())
    # Scopes that may hold functions: namespaces and class bodies; anything else is a body.
    stack = []  # one entry per open brace: True when it opens a function body
    head_start = 0
    found = []
    line = 1
    for i, c in enumerate(text):
        if c == "\n":
            line += 1
        elif c == "{":
            inside_function = any(stack)
            head = text[head_start:i]
            is_function = (not inside_function and "(" in head and not HEAD_SKIP.search(head)
                           and not head.rstrip().endswith("=") and "=" not in head.split("(")[0])
            if is_function:
                name = re.findall(r"([~\w:<>]+)\s*\(", head)
                start = line - head.strip("\n").count("\n")
                found.append([name[0] if name else "?", start, None])
            stack.append(is_function)
            head_start = i + 1
        elif c == "}":
            opened = stack.pop() if stack else False
            if opened:
                for f in reversed(found):
                    if f[2] is None:
                        f[2] = line
                        break
            head_start = i + 1
        elif c == ";" and not any(stack):
            head_start = i + 1
    return [(name, start, end) for name, start, end in found if end is not None]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=120)
    parser.add_argument("--exceptions", help="file of 'path:function' lines allowed to be longer")
    parser.add_argument("dirs", nargs="+")
    args = parser.parse_args()
    allowed = set()
    if args.exceptions:
        for entry in open(args.exceptions, encoding="utf-8"):
            entry = entry.split("#")[0].strip()
            if entry:
                allowed.add(entry)
    root = os.getcwd()
    over = []
    for top in args.dirs:
        for folder, _, files in os.walk(top):
            for f in sorted(files):
                if f.endswith((".cpp", ".h", ".cc", ".hpp")):
                    path = os.path.relpath(os.path.join(folder, f), root)
                    for name, start, end in functions(path):
                        if end - start + 1 > args.limit:
                            over.append((end - start + 1, path, name, start))
    bad = 0
    for length, path, name, start in sorted(over, reverse=True):
        key = "%s:%s" % (path, name)
        tag = "allowed" if key in allowed else "TOO LONG"
        bad += key not in allowed
        print("%4d lines  %s:%d %s  (%s)" % (length, path, start, name, tag))
    print("%d function(s) over %d lines, %d not among the exceptions" % (len(over), args.limit, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
