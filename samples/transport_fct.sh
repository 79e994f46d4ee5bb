#!/usr/bin/env bash
# Flow completion times of the packet backend's transports side by side (docs/packet-backend.md,
# "RoCE with DCQCN"): a 16-to-1 incast of 4 MiB flows and a 128-flow permutation of 16 MiB flows
# on a k=8 fat-tree (100 Gb/s, 1 us per hop, 8-packet switch queues), for
#   tail-drop   reliable transport over tail-drop queues (per-flow ECMP)
#   ndp         NDP with trimming switches, sprayed over all equal-cost paths
#   roce        RoCE over a lossless fabric: PFC + RED ECN + DCQCN (per-flow ECMP)
#   accept-trimmed  NDP pacing, trimmed packets kept (trimming-based gradient compression)
# and what accept-trimmed gains over each (last FCT ratio).
#
# The scenario schema (samples/*.json) does not list the roce transport yet, so this sample is a
# script of `commlab-cli traffic` runs rather than a scenario.
#
#   samples/transport_fct.sh [path/to/commlab-cli] [extra traffic flags, e.g. --queue 0]
set -euo pipefail
cli=${1:-build/app/commlab-cli}
shift || true
extra=("$@")
if [[ ! -x $cli ]]; then
  echo "transport_fct.sh: no commlab-cli at '$cli' (pass its path as the first argument)" >&2
  exit 2
fi

cluster=fattree:k=8
patterns=("incast:16 --flow-size 4M" "perm --flow-size 16M")
names=(tail-drop ndp roce roce-sprayed accept-trimmed)
flags=("--transport reliable --admission tail-drop"
       "--transport ndp"
       "--transport roce"
       "--transport roce --paths 64"
       "--transport accept-trimmed")

# last FCT in us, one line: "first median last dropped trimmed retransmitted"
measure() {
  # shellcheck disable=SC2086
  "$cli" traffic --cluster "$cluster" --pattern $1 $2 "${extra[@]}" --json |
    python3 -c 'import json, sys
j = json.load(sys.stdin); f = j["fct_us"]
print("%.0f %.0f %.0f %d %d %d" % (f["first"], f["median"], f["last"], j["dropped"],
      j["trimmed"], j["retransmitted"]))'
}

for pattern in "${patterns[@]}"; do
  echo
  echo "### ${pattern%% *} (${pattern#* })"
  echo
  echo "| transport | first us | median us | last us | dropped | trimmed | retransmitted | accept-trimmed gains (last) |"
  echo "|---|---|---|---|---|---|---|---|"
  declare -A last=()
  declare -A row=()
  for i in "${!names[@]}"; do
    read -r first median lst dropped trimmed rtx < <(measure "$pattern" "${flags[$i]}")
    last[${names[$i]}]=$lst
    row[${names[$i]}]="| ${names[$i]} | $first | $median | $lst | $dropped | $trimmed | $rtx"
  done
  at=${last[accept-trimmed]}
  for n in "${names[@]}"; do
    gain=$(python3 -c "print('%.2fx' % (${last[$n]} / $at))")
    echo "${row[$n]} | $gain |"
  done
  unset last row
done
