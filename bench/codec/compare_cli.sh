#!/usr/bin/env bash
# Sanity row: the real zstd and lz4 command-line tools on the same bytes codec_bench measures.
# Usage: bench/codec/compare_cli.sh [BUILD_DIR] [DATA]   (DATA: fmnist or a generator, default fmnist)
# Prints ratio (compressed / original) and the tools' own in-memory benchmark speeds (-b, one core).
set -euo pipefail
build=${1:-build-codec}
data=${2:-fmnist}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
file="$tmp/tensor.bf16"
"$build/bench/codec/codec_bench" --data "$data" --dump "$file"
size=$(stat -c %s "$file")
echo "| tool | ratio | compress MB/s | decompress MB/s |"
echo "|---|---|---|---|"
for level in 1 19; do
  zstd -q -f -"$level" --single-thread "$file" -o "$tmp/z"
  ratio=$(awk -v a="$(stat -c %s "$tmp/z")" -v b="$size" 'BEGIN{printf "%.4f", a/b}')
  # zstd -b prints "... ratio (x.xxx), NNN MB/s, NNN MB/s" for compress and decompress.
  speeds=$(zstd -b"$level" -i3 --single-thread "$file" 2>&1 | tr '\r' '\n' | grep -o '[0-9.]* MB/s' | tail -2 | awk '{print $1}' | paste -sd'|')
  echo "| zstd -$level (CLI) | $ratio | ${speeds//|/ | } |"
done
lz4 -q -f -1 "$file" "$tmp/l"
ratio=$(awk -v a="$(stat -c %s "$tmp/l")" -v b="$size" 'BEGIN{printf "%.4f", a/b}')
speeds=$(lz4 -b1 -i3 "$file" 2>&1 | tr '\r' '\n' | grep -o '[0-9.]* MB/s' | tail -2 | awk '{print $1}' | paste -sd'|')
echo "| lz4 -1 (CLI) | $ratio | ${speeds//|/ | } |"
