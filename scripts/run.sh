#!/usr/bin/env bash
# The main job: set up (missing Debian packages, Release build), then open the GUI when a display
# exists, or else run the default headless experiment and say where its results are.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
if { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; } && [ -x build/app/commlab ]; then
  exec build/app/commlab "$@"
fi
out=${COMMLAB_RESULTS:-results/default}
mkdir -p "$out"
echo "No display: running the default headless experiment (all-reduce algorithms on 8 ranks)."
for algo in ring tree hd direct; do
  build/app/commlab-cli collective --algo "$algo" --ranks 8 --sizes 1K:64M | tee "$out/allreduce_$algo.txt"
  build/app/commlab-cli collective --algo "$algo" --ranks 8 --sizes 1K:64M --json >"$out/allreduce_$algo.json"
done
build/app/commlab-cli collective --algo ring --ranks 8 --sizes 1K:64M --skip 4 --skip-policy random \
  --json >"$out/allreduce_ring_skipreduce50.json"
echo
echo "Results written to $(pwd)/$out (tables *.txt, nccl-tests-style JSON *.json)."
