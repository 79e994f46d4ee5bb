#!/usr/bin/env python3
"""CPU time of a cold build, file by file against unity, for the same folders (README.md).

Runs every compile command of two configured build trees (their compile_commands.json, ccache
stripped, objects written to a scratch file) one after the other and prints the user + sys CPU
each took. Both trees must be configured from the same sources, one with
-DCMAKE_UNITY_BUILD=OFF and one with ON, and built once (generated headers must exist).

  bench/build/unity_cpu_compare.py PERFILE_DIR UNITY_DIR core/scenario,core/workload,tests/ui

A folder matches the object paths of its targets (CMake writes objects under the binary tree's
mirror of the source folder).
"""
import json
import resource
import shlex
import subprocess
import sys
import time


def commands(build_dir, folders):
    out = []
    for entry in json.load(open(f"{build_dir}/compile_commands.json")):
        args = [a for a in shlex.split(entry["command"]) if "ccache" not in a]
        obj = args[args.index("-o") + 1]
        if any(obj.startswith(f + "/") for f in folders):
            args[args.index("-o") + 1] = "/tmp/unity_cpu_compare.o"
            out.append((entry["directory"], args, obj))
    return out


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    perfile, unity, folders = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
    for label, build_dir in (("per file", perfile), ("unity", unity)):
        cmds = commands(build_dir, folders)
        before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.time()
        for directory, args, obj in cmds:
            if subprocess.run(args, cwd=directory, capture_output=True).returncode != 0:
                sys.exit(f"{label}: compiling {obj} failed")
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        print(f"{label}: {len(cmds)} translation units, {cpu:.0f} s of CPU (user + sys), "
              f"{time.time() - start:.0f} s wall", flush=True)


if __name__ == "__main__":
    main()
