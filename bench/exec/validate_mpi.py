#!/usr/bin/env python3
"""Predicted vs measured collectives over Open MPI on this machine.

For each process count: `calibrate` once, then `collective --exec mpi --cluster CAL --json` for
ring, tree and hd x allreduce, reducescatter, allgather over the size range, plus SkipReduce and a
codec on the ring. Prints markdown tables: per case the median and worst |error| over the
bandwidth-bound sizes (>= --bw-from) and over all sizes, and the per-size errors.

  python3 bench/exec/validate_mpi.py --cli build/app/commlab-cli --np 2,4,8 --sizes 1K:64M \
      [--json-out results.json]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ALGOS = ["ring", "tree", "hd"]
OPS = ["allreduce", "reducescatter", "allgather"]
EXTRA = [  # (label, extra flags): one SkipReduce policy and one codec, on the ring all-reduce
    ("ring allreduce, SkipReduce random s=1", ["--algo", "ring", "--op", "allreduce",
                                                "--skip", "1", "--skip-policy", "random"]),
    ("ring allreduce, codec lz4", ["--algo", "ring", "--op", "allreduce", "--codec", "lz4"]),
]


def parse_size(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)


def mpirun(np, args):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    cmd = ["mpirun", "--oversubscribe", "-np", str(np), "--mca", "btl", "self,vader"] + args
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1800)
    if out.returncode != 0:
        sys.exit(f"validate_mpi: {' '.join(cmd)} failed ({out.returncode}):\n{out.stderr}")
    return out.stdout


def summarise(rows, bw_from):
    errs = [abs(r["error_pct"]) for r in rows]
    bw = [abs(r["error_pct"]) for r in rows if r["size_bytes"] >= bw_from]
    return {
        "median_bw": statistics.median(bw) if bw else float("nan"),
        "worst_bw": max(bw) if bw else float("nan"),
        "median_all": statistics.median(errs),
        "worst_all": max(errs),
        "wrong": sum(r["wrong"] for r in rows if r["wrong"] >= 0),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default="build/app/commlab-cli")
    ap.add_argument("--np", default="2,4,8")
    ap.add_argument("--sizes", default="1K:64M")
    ap.add_argument("--bw-from", default="1M", help="bandwidth-bound from this size on")
    ap.add_argument("--iters", default="20")
    ap.add_argument("--json-out")
    a = ap.parse_args()
    bw_from = parse_size(a.bw_from)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for np in [int(x) for x in a.np.split(",")]:
            cal = os.path.join(tmp, f"cal{np}.json")
            mpirun(np, [a.cli, "calibrate", "--out", cal])
            cases = [(f"{algo} {op}", ["--algo", algo, "--op", op]) for algo in ALGOS for op in OPS]
            for label, flags in cases + EXTRA:
                out = mpirun(np, [a.cli, "collective", "--exec", "mpi", "--json", "--sizes",
                                  a.sizes, "--iters", a.iters, "--cluster", cal] + flags)
                rows = json.loads(out)["rows"]
                results.append({"np": np, "case": label, "rows": rows,
                                **summarise(rows, bw_from)})
                print(f"np {np} {label}: median |err| {results[-1]['median_bw']:.1f}% "
                      f"(>= {a.bw_from})", file=sys.stderr)
    if a.json_out:
        with open(a.json_out, "w") as f:
            json.dump(results, f, indent=1)

    print(f"| procs | case | median \\|err\\| >= {a.bw_from} | worst >= {a.bw_from} | "
          "median \\|err\\| all | worst all | #wrong |")
    print("|---|---|---|---|---|---|---|")
    for r in results:
        print(f"| {r['np']} | {r['case']} | {r['median_bw']:.1f}% | {r['worst_bw']:.1f}% | "
              f"{r['median_all']:.1f}% | {r['worst_all']:.1f}% | {r['wrong']:.0f} |")
    bw = [r["median_bw"] for r in results]
    print(f"\nmedian over cases of the bandwidth-bound median: {statistics.median(bw):.1f}%")
    print("\nSigned error (predicted - measured) / measured, % per size:\n")
    sizes = [row["size_bytes"] for row in results[0]["rows"]]
    print("| procs | case | " + " | ".join(human(s) for s in sizes) + " |")
    print("|---|---|" + "---|" * len(sizes))
    for r in results:
        cells = {row["size_bytes"]: f"{row['error_pct']:+.0f}" for row in r["rows"]}
        print(f"| {r['np']} | {r['case']} | " + " | ".join(cells.get(s, "") for s in sizes) + " |")


def human(n):
    for unit, scale in (("M", 1 << 20), ("K", 1 << 10)):
        if n >= scale:
            return f"{n // scale}{unit}"
    return str(n)


if __name__ == "__main__":
    main()
