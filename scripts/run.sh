#!/usr/bin/env bash
# The main job: set up (missing Debian packages, Release build), then open the GUI on the default
# scenario when a display exists, or else run the default headless experiment and say where its
# results are.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
if { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; } && [ -x build/app/commlab ]; then
  exec build/app/commlab samples/quickstart.json "$@"
fi
out=${COMMLAB_RESULTS:-results/default}
mkdir -p "$out"
out=$(realpath "$out")
echo "No display: running the default headless experiment (samples/quickstart.json): 8 ranks train"
echo "an MLP on Fashion-MNIST with plain all-reduce, SkipReduce, NetZIP and trimming."
build/app/commlab-cli run samples/quickstart.json --out "$out/quickstart"
for algo in ring tree hd direct; do
  build/app/commlab-cli collective --algo "$algo" --ranks 8 --sizes 1K:64M >"$out/allreduce_$algo.txt"
  build/app/commlab-cli collective --algo "$algo" --ranks 8 --sizes 1K:64M --json >"$out/allreduce_$algo.json"
done
cat "$out/allreduce_ring.txt"
echo
echo "Results written to $out:"
echo "  quickstart/summary.json, quickstart/series.csv   training runs (docs/cli.md, 'run')"
echo "  allreduce_*.txt / *.json                          nccl-tests-style tables, verified buffers"
