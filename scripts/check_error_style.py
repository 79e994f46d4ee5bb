#!/usr/bin/env python3
"""The engine refuses bad input one way: core/ throws a bare std::invalid_argument nowhere.

core/io/status.h says how core reports: a user's bad input is a Status (StatusOr at the boundary),
or, where the refusing code reports by exception, `throw bad_input(message)` (a kBadInput
StatusError carrying the Status); engine limits and broken invariants are std::logic_error and
failures outside the input std::runtime_error. A bare `throw std::invalid_argument(...)` would
carry no code and no field, so this check (ctest code.core_refuses_input_one_way) lists every one.

Usage: check_error_style.py ROOT        lists violations, exit 1 when there is one
       check_error_style.py --self-test  shows that a violation is found
"""
import pathlib
import re
import sys
import tempfile

# Constructing the exception to throw or return it; `catch (const std::invalid_argument&)` and a
# derived type's base initialiser (": std::invalid_argument(...)" in status.cpp, scenario_text.cpp)
# are not constructions of a bare one.
BARE = re.compile(r"\b(throw|return)\s+std::invalid_argument\s*[({]|"
                  r"make_exception_ptr\s*\(\s*std::invalid_argument\s*[({]")


def violations(root: pathlib.Path):
    found = []
    for path in sorted(root.glob("core/**/*")):
        if path.suffix not in (".h", ".cpp") or not path.is_file():
            continue
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if BARE.search(line.split("//")[0]):
                found.append(f"{path.relative_to(root)}:{number}: {line.strip()}")
    return found


def self_test() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        (root / "core" / "x").mkdir(parents=True)
        (root / "core" / "x" / "ok.cpp").write_text(
            'try { f(); } catch (const std::invalid_argument& e) {}\n'
            'throw bad_input("ranks must be >= 1");\n'
            '// throw std::invalid_argument("in a comment");\n')
        (root / "core" / "x" / "bad.cpp").write_text(
            'if (n < 1) throw std::invalid_argument("ranks must be >= 1");\n')
        found = violations(root)
        if found != ['core/x/bad.cpp:1: if (n < 1) throw std::invalid_argument("ranks must be >= 1");']:
            print("self-test failed:", found)
            return 1
    print("self-test: the bare throw is found, the catch, bad_input and the comment are not")
    return 0


def main() -> int:
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    found = violations(root)
    for line in found:
        print(line)
    if found:
        print(f"{len(found)} bare std::invalid_argument in core/: throw bad_input(message) "
              "(core/io/status.h) for the user's input, std::logic_error for an engine limit")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
