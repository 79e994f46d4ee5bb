#!/usr/bin/env python3
"""The codec table of docs/tensors.md: every BF16 file tensor_dump wrote, through every codec of
`commlab-cli codec` (real round trips, verified lossless), plus each byte plane's empirical
entropy (bits per byte: the high byte is sign + 7 exponent bits, the low byte 1 exponent bit + 7
mantissa bits).

  build/bench/tensors/tensor_dump /tmp/tensors
  python3 bench/tensors/tensor_table.py --cli build/app/commlab-cli /tmp/tensors
"""
import argparse
import json
import math
import os
import subprocess
import sys

CODECS = ["commlab", "netzip-lossless", "bytegroup-zstd", "zstd-19", "zstd-1", "lz4"]


def plane_entropy(data, plane):
    counts = [0] * 256
    for b in data[plane::2]:
        counts[b] += 1
    n = len(data) // 2
    return -sum(c / n * math.log2(c / n) for c in counts if c)


def measure(cli, path):
    out = subprocess.run([cli, "codec", "--input", path, "--dtype", "bf16", "--codecs",
                          ",".join(CODECS), "--verify", "--json"],
                         capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        sys.exit(f"tensor_table: {path}: exit {out.returncode}: {out.stderr}")
    return {c["name"]: c["ratio"] for c in json.loads(out.stdout)["codecs"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default="build/app/commlab-cli")
    ap.add_argument("dir")
    a = ap.parse_args()
    files = sorted(f for f in os.listdir(a.dir) if f.endswith(".bf16"))
    print("| tensor | values | " + " | ".join(CODECS) +
          " | high byte H | low byte H |")
    print("|---|---|" + "---|" * (len(CODECS) + 2))
    for f in files:
        path = os.path.join(a.dir, f)
        data = open(path, "rb").read()
        ratios = measure(a.cli, path)
        best = min(ratios[c] for c in CODECS)
        cells = [(f"**{ratios[c]:.3f}**" if ratios[c] == best else f"{ratios[c]:.3f}")
                 for c in CODECS]
        print(f"| {f[:-5]} | {len(data) // 2} | " + " | ".join(cells) +
              f" | {plane_entropy(data, 1):.2f} | {plane_entropy(data, 0):.2f} |")


if __name__ == "__main__":
    main()
