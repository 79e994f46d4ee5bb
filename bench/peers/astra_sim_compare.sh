#!/usr/bin/env bash
# Side by side with ASTRA-sim 2.x (analytical, congestion-unaware): the same Chakra traces replayed
# by both tools on the same network, one table of iteration times, ratios, wall time and peak RSS.
#
#   bench/peers/astra_sim_compare.sh ASTRA_SIM_BINARY [COMMLAB_CLI] [WORK_DIR]
#
# ASTRA_SIM_BINARY: AstraSim_Analytical_Congestion_Unaware (docs/workload.md, "Building ASTRA-sim
# offline").
# COMMLAB_CLI: default build/app/commlab-cli. WORK_DIR: traces, configs and logs (default a new
# folder under /tmp), kept for inspection. Needs protoc, python3-protobuf and /usr/bin/time.
#
# Network: ASTRA-sim's Switch at 50 "GB/s" (2^30 B/s) and 500 ns per hop is CommLab's flat network
# at --bw 53.6870912 --alpha-us 1 (10^9 B/s; a ring step crosses two hops), docs/workload.md
# "Side by side with ASTRA-sim". Workload traces: Llama-3-8B iterations CommLab emits
# (workload --catalog llama3-8b --emit-trace) with their compute pinned to whole microseconds
# (chakra_peer.py pin), so both tools replay the same compute times. Microbenchmarks: one
# collective per rank, as ASTRA-sim's generator scripts write them. CommLab runs each trace twice:
# --comm-issue astra (ASTRA-sim's issue rule) and the default overlap. EXTRA_TRACES="DIR/PREFIX ..."
# adds traces from elsewhere (ASTRA-sim's symbolic_tensor_graph generator's, PREFIX.json groups).
set -euo pipefail

if [ $# -lt 1 ]; then
  sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
astra=$(realpath "$1")
cli=$(realpath "${2:-$root/build/app/commlab-cli}")
[ -x "$astra" ] || { echo "astra_sim_compare: $astra: not an executable" >&2; exit 2; }
[ -x "$cli" ] || { echo "astra_sim_compare: $cli: not an executable (build commlab-cli)" >&2; exit 2; }
work=${3:-$(mktemp -d /tmp/astra_compare.XXXXXX)}
mkdir -p "$work"
work=$(realpath "$work")

# The GPU CommLab times compute with: h100 (core/topology/gpu_presets.cpp: 989 TFLOP/s BF16,
# 3350 GB/s HBM) at MFU 0.4, the workload command's defaults for --gpu h100.
gpu=h100
mfu=0.4
flops_per_s=$(/usr/bin/python3 -c "print(989e12 * $mfu)")
hbm_bps=3350e9
commlab_net=(--bw 53.6870912 --alpha-us 1)

py=${PYTHON:-/usr/bin/python3}  # the Debian python with python3-protobuf
protoc --proto_path="$root/core/workload/chakra" --python_out="$work" et_def.proto
peer() { PYTHONPATH="$work" "$py" "$here/chakra_peer.py" "$@"; }

write_configs() {  # ranks
  cat > "$work/net_$1.yml" <<EOF
topology: [ Switch ]
npus_count: [ $1 ]
bandwidth: [ 50.0 ]  # GB/s of 2^30 B/s
latency: [ 500.0 ]  # ns per hop
EOF
}
# endpoint-delay 0 aborts ASTRA-sim (an event at the current time); 1 ns is the smallest.
# local-mem-bw 1e6 GB/s makes the reduction's memory copies free, as CommLab's plans have none;
# one chunk per collective (preferred-dataset-splits 1) is CommLab's plan of a step.
cat > "$work/system.json" <<EOF
{
  "scheduling-policy": "LIFO",
  "endpoint-delay": 1,
  "active-chunks-per-dimension": 1,
  "preferred-dataset-splits": 1,
  "all-reduce-implementation": ["ring"],
  "all-gather-implementation": ["ring"],
  "reduce-scatter-implementation": ["ring"],
  "all-to-all-implementation": ["ring"],
  "collective-optimization": "baseline",
  "local-mem-bw": 1000000,
  "boost-mode": 0,
  "roofline-enabled": 0
}
EOF
echo '{ "memory-type": "NO_MEMORY_EXPANSION" }' > "$work/memory.json"
for n in 8 64; do write_configs $n; done

run_astra() {  # name prefix ranks -> "seconds wall rss"
  local log="$work/$1.astra.log" groups=()
  [ -f "$2.comm_groups.json" ] && groups=(--comm-group-configuration="$2.comm_groups.json")
  (cd "$work" && /usr/bin/time -v -o "$work/$1.astra.time" "$astra" \
    --workload-configuration="$2" "${groups[@]}" --system-configuration="$work/system.json" \
    --remote-memory-configuration="$work/memory.json" --network-configuration="$work/net_$3.yml" \
    > "$log" 2>&1) || echo "astra_sim_compare: $1: ASTRA-sim exited $? (see $log)" >&2
  echo "$(peer astra "$log" "$3") $(peer rusage "$work/$1.astra.time")"
}

run_commlab() {  # name prefix issue -> "seconds wall rss"
  local out="$work/$1.$3.json"
  /usr/bin/time -v -o "$work/$1.$3.time" "$cli" workload --trace "$2" "${commlab_net[@]}" \
    --gpu $gpu --mfu $mfu --comm-issue "$3" --json > "$out" 2> "$work/$1.$3.err"
  local s
  s=$("$py" -c "import json,sys; print(json.load(open(sys.argv[1]))['baseline']['iteration_s'])" "$out")
  echo "$s $(peer rusage "$work/$1.$3.time")"
}

# One collective with bulk-synchronous ring steps (collective --slice-bytes 0), ASTRA-sim's step
# with one chunk, where `workload` pipelines NCCL's 512 KiB slices: op bytes ranks -> seconds.
# size is the per-rank buffer `collective` takes: an all-gather's is its output (n shards).
run_bulk() {
  local op=${1//_/} size=$2
  [ "$op" = allgather ] && size=$(($2 * $3))
  "$cli" collective --ranks "$3" "${commlab_net[@]}" --op "$op" --sizes "$size:$size" \
    --slice-bytes 0 --time-only --json |
    "$py" -c "import json,sys; print(json.load(sys.stdin)['rows'][0]['time_us'] * 1e-6)"
}

rows=()
compare() {  # name prefix ranks [bulk seconds]
  local a c o
  a=($(run_astra "$1" "$2" "$3"))
  c=($(run_commlab "$1" "$2" astra))
  o=($(run_commlab "$1" "$2" overlap))
  rows+=("$1|$3|${a[0]}|${c[0]}|${o[0]}|${4:-}|${a[1]}|${a[2]}|${c[1]}|${c[2]}|${o[1]}|${o[2]}")
  echo "done: $1" >&2
}

# Llama-3-8B iterations: name ranks tp pp dp global-batch.
workloads=(
  "llama8b-dp8 8 1 1 8 8"
  "llama8b-tp8 8 8 1 1 2"
  "llama8b-pp8 8 1 8 1 8"
  "llama8b-tp2pp2dp2 8 2 2 2 8"
  "llama8b-tp8pp8 64 8 8 1 8"
  "llama8b-tp4pp4dp4 64 4 4 4 16"
)
for w in "${workloads[@]}"; do
  read -r name n tp pp dp gb <<< "$w"
  "$cli" workload --catalog llama3-8b --cluster "flat:$n,gbps=429.4967296,alpha_us=1" \
    --tp "$tp" --pp "$pp" --dp "$dp" --global-batch "$gb" --gpu $gpu --mfu $mfu \
    --emit-trace "$work/$name.roofline" --json > "$work/$name.emit.json"
  peer pin "$work/$name.roofline/llama3-8b" "$work/$name" "$flops_per_s" "$hbm_bps" 2> /dev/null
  compare "$name" "$work/$name" "$n"
done

# Traces from elsewhere (EXTRA_TRACES="DIR/PREFIX ...", e.g. ASTRA-sim's symbolic_tensor_graph
# generator's), their compute pinned the same way; ranks: the number of PREFIX.K.et files.
for prefix in ${EXTRA_TRACES:-}; do
  name=$(basename "$(dirname "$prefix")")-$(basename "$prefix")
  n=$(ls "$prefix".*.et | wc -l)
  peer pin "$prefix" "$work/$name" "$flops_per_s" "$hbm_bps" 2> /dev/null
  [ -f "$prefix.json" ] && cp "$prefix.json" "$work/$name.comm_groups.json"
  compare "$name" "$work/$name" "$n"
done

for n in 8 64; do
  for op in all_reduce reduce_scatter all_gather all_to_all; do
    for size in 1048576 67108864; do
      name="$op-$n-$((size >> 20))MiB"
      peer micro "$work/$name" "$n" "$op" "$size"
      bulk=""
      [ "$op" != all_to_all ] && bulk=$(run_bulk "$op" "$size" "$n")
      compare "$name" "$work/$name" "$n" "$bulk"
    done
  done
done

printf '%s\n' "${rows[@]}" | "$py" -c '
import sys
print("| trace | ranks | ASTRA-sim (s) | CommLab astra (s) | astra / ASTRA-sim | CommLab overlap (s) "
      "| overlap / ASTRA-sim | CommLab bulk steps (s) | bulk / ASTRA-sim "
      "| ASTRA-sim wall (s), RSS (MB) | CommLab astra wall, RSS | CommLab overlap wall, RSS |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for line in sys.stdin:
    name, n, a, c, o, b, aw, ar, cw, cr, ow, orss = line.strip().split("|")
    a, c, o = float(a), float(c), float(o)
    bulk = f"{float(b):.6g} | {float(b) / a:.4f}" if b else " | "
    print(f"| {name} | {n} | {a:.6g} | {c:.6g} | {c / a:.4f} | {o:.6g} | {o / a:.4f} | {bulk} "
          f"| {aw}, {ar} | {cw}, {cr} | {ow}, {orss} |")
'
echo "(work folder: $work)"
