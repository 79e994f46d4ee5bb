#!/usr/bin/env bash
# Side by side with htsim (the NDP/EQDS packet simulator): the two scenarios of
# docs/packet-backend.md "The htsim scenarios" run by both tools on this machine, alternating, each
# REPEAT times; prints the medians of CPU time, wall time, peak RSS and the simulated last flow
# completion time, and the ratio of CPU times.
#
#   bench/peers/htsim_compare.sh HTSIM [COMMLAB_CLI] [WORK_DIR]
#
# HTSIM: htsim's datacenter NDP binary (htsim_ndp) or the folder holding it (sim/datacenter of
# github.com/Broadcom/csg-htsim; docs/packet-backend.md "Side by side with htsim" builds it).
# COMMLAB_CLI: default build/app/commlab-cli. WORK_DIR: connection matrices and logs (default a
# new folder under /tmp), kept for inspection. REPEAT (environment, default 3): runs per tool and
# scenario. Needs python3 and /usr/bin/time.
#
# Both tools simulate the same flows: the connection matrices given to htsim hold the pairs that
# `commlab-cli traffic --pattern perm|incast:16 --seed 1` draws (core/network/traffic_patterns.cpp,
# re-derived below from core/numeric/rng.h), and the script checks them against the data
# packet-hops CommLab reports. Same in both: 128-host 3-tier k=8 fat-tree, 100 Gb/s links, 1 us per
# hop, 4096 B payload + 64 B header per data packet, NDP with trimming switch ports holding 8 data
# packets, packets sprayed over the equal-cost paths, all flows starting at time 0.
# What differs (htsim's main_ndp.cpp and CommLab's defaults):
#  - spraying: htsim -strat perm sends down a random permutation of a flow's paths, reshuffled
#    after each cycle;
#    CommLab --paths 16 sprays round robin over up to 16 paths (all of them in a k=8 fat-tree).
#  - initial window: htsim has one -cwnd for all flows, set here to 44 packets, the window CommLab
#    derives for a cross-pod path (its bandwidth-delay product + 2); CommLab gives each flow its
#    own path's BDP + 2 (16 packets within a rack, 44 across pods).
#  - pull pacing: htsim paces PULLs at 0.99 of the line rate, CommLab at the line rate.
#  - switch ports: htsim serves headers over data 100000:1 and trims to a 64 B header; CommLab's
#    weighted round robin is 10:1 and trims to 128 B.
#  - timers: htsim's retransmit scanner (every 9 us) and clock keep running until -end (set a bit
#    past the last flow), CommLab stops when the last flow completes.
#  - counters: htsim reports packets sent and retransmitted, not packet-hops. The rate column of
#    both tools is therefore "delivered packet-hops per CPU second": each flow's packets times its
#    path's hop count (2 in a rack, 4 in a pod, 6 across pods), the same number for both tools
#    since they move the same flows over the same paths. CommLab's own data_packet_hops counter
#    (which also counts retransmitted packets) is printed beside it.
set -euo pipefail

if [ $# -lt 1 ]; then
  sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
htsim=$(realpath "$1")
[ -d "$htsim" ] && htsim="$htsim/htsim_ndp"
cli=$(realpath "${2:-$root/build/app/commlab-cli}")
[ -x "$htsim" ] ||
  { echo "htsim_compare: $htsim: not an executable (build htsim_ndp)" >&2; exit 2; }
[ -x "$cli" ] || { echo "htsim_compare: $cli: not an executable (build commlab-cli)" >&2; exit 2; }
[ -x /usr/bin/time ] ||
  { echo "htsim_compare: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }
work=${3:-$(mktemp -d /tmp/htsim_compare.XXXXXX)}
mkdir -p "$work"
work=$(realpath "$work")
repeat=${REPEAT:-3}
py=${PYTHON:-/usr/bin/python3}
cwnd=44

rev() { git -C "$1" rev-parse --short=12 HEAD 2>/dev/null || echo unknown; }
load() { uptime | sed 's/.*load average: //'; }
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores; load average before: $(load)"
echo "command: $0 $*"
echo "htsim: $htsim (commit $(rev "$(dirname "$htsim")"))"
echo "CommLab: $cli (its checkout at $(rev "$(dirname "$cli")"))"

# The pairs of CommLab's pattern_pairs() for 128 ranks and seed 1, as htsim connection matrices.
# CounterRng(seed, Purpose::kTraffic = 10, pattern, 1): mix64 is SplitMix64's finaliser.
"$py" - "$work" <<'EOF'
import sys
M = (1 << 64) - 1
def mix64(z):
    z = (z + 0x9E3779B97F4A7C15) & M
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return z ^ (z >> 31)
def stream(seed, pattern):
    key = seed
    for part in (10, pattern, 1):  # hash_combine(hash_combine(hash_combine(seed, 10), p), 1)
        key = mix64(key ^ mix64(part))
    return lambda i, n: (mix64((key + mix64(i)) & M) * n) >> 64  # below(i, n)
def permutation(ranks, seed):
    below, perm = stream(seed, 0), list(range(ranks))
    for i in range(ranks - 1, 0, -1):
        j = below(i, i + 1)
        perm[i], perm[j] = perm[j], perm[i]
    for i in range(ranks):  # fixed points swap with the next rank
        if perm[i] == i:
            k = (i + 1) % ranks
            perm[i], perm[k] = perm[k], perm[i]
    return [(i, perm[i]) for i in range(ranks)]
def incast(ranks, senders, seed, target=0):
    below, others, pairs = stream(seed, 1), [r for r in range(ranks) if r != target], []
    for i in range(senders):  # partial Fisher-Yates
        j = i + below(i, len(others) - i)
        others[i], others[j] = others[j], others[i]
        pairs.append((others[i], target))
    return pairs
def hops(s, d):  # k=8: 4 hosts per rack, 16 per pod
    return 2 if s // 4 == d // 4 else 4 if s // 16 == d // 16 else 6
for name, pairs, size in (("perm", permutation(128, 1), 16 << 20),
                          ("incast", incast(128, 16, 1), 128 << 20)):
    with open(f"{sys.argv[1]}/{name}.cm", "w") as f:
        f.write(f"Nodes 128\nConnections {len(pairs)}\n")
        for s, d in pairs:
            f.write(f"{s}->{d} start 0 size {size}\n")
    packets = -(-size // 4096)
    with open(f"{sys.argv[1]}/{name}.hops", "w") as f:
        f.write(f"{sum(packets * hops(s, d) for s, d in pairs)}\n")
EOF

# One timed run: tool scenario index -> WORK/scenario.tool.index.{out,time}. Runs in WORK, where
# htsim also writes its idmap.txt.
timed() {
  local tool=$1 scen=$2 i=$3 out="$work/$2.$1.$3"
  shift 3
  (cd "$work" && /usr/bin/time -v -o "$out.time" "$@" > "$out.out" 2> "$out.err") ||
    { echo "htsim_compare: $tool $scen run $i failed, see $out.err" >&2; exit 1; }
}

declare -A commlab_args=([perm]="--pattern perm --flow-size 16M"
                         [incast]="--pattern incast:16 --flow-size 128M")
# -end (us) a little past the last flow; the check below fails if a flow has not finished by then.
declare -A htsim_end=([perm]=2500 [incast]=190000)
for scen in perm incast; do
  for i in $(seq 1 "$repeat"); do
    # shellcheck disable=SC2086
    timed commlab "$scen" "$i" "$cli" traffic --cluster fattree:k=8 ${commlab_args[$scen]} \
      --transport ndp --queue 8 --mtu 4096 --paths 16 --seed 1 --json
    timed htsim "$scen" "$i" "$htsim" -nodes 128 -tiers 3 -linkspeed 100000 -hop_latency 1 \
      -mtu 4096 -q 8 -queue_type composite -strat perm -cwnd "$cwnd" -seed 13 \
      -end "${htsim_end[$scen]}" -tm "$work/$scen.cm" -o "$work/$scen.htsim.$i.log"
  done
done
echo "load average after: $(load)"

"$py" - "$work" "$repeat" <<'EOF'
import json, re, statistics, sys
work, repeat = sys.argv[1], int(sys.argv[2])
def usage(path):  # /usr/bin/time -v -> cpu s, wall s, max RSS MB
    text = open(path).read()
    field = lambda name: re.search(re.escape(name) + r": (.*)", text).group(1).strip()
    wall = 0.0
    for part in field("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":"):
        wall = wall * 60 + float(part)
    return (float(field("User time (seconds)")) + float(field("System time (seconds)")), wall,
            int(field("Maximum resident set size (kbytes)")) / 1024)
def commlab(scen, i):
    base = f"{work}/{scen}.commlab.{i}"
    doc = json.load(open(base + ".out"))
    return usage(base + ".time") + (doc["fct_us"]["last"], doc["data_packet_hops"],
                                     doc["retransmitted"], doc["flows"])
def htsim(scen, i):
    base = f"{work}/{scen}.htsim.{i}"
    text = open(base + ".out").read()
    # htsim's clock prints dots without a newline, so a report need not start its line.
    done = [float(t) for t in re.findall(r"Flow \S+ flow_id \d+ finished at ([0-9.e+]+)", text)]
    rtx = re.search(r"^New: \d+ Rtx: (\d+)", text, re.M)
    return usage(base + ".time") + (max(done) if done else float("nan"), None,
                                    int(rtx.group(1)) if rtx else -1, len(done))
flows = {"perm": 128, "incast": 16}
med = lambda rows, k: statistics.median(r[k] for r in rows)
print(f"runs per tool and scenario: {repeat} (medians); CPU = user + sys of the process")
print("| scenario | tool | CPU s | wall s | max RSS MB | last flow us | retransmitted |"
      " delivered packet-hops | M delivered packet-hops per CPU s |")
print("|---|---|---|---|---|---|---|---|---|")
ratios = {}
for scen in ("perm", "incast"):
    delivered = int(open(f"{work}/{scen}.hops").read())
    rows = {"CommLab": [commlab(scen, i) for i in range(1, repeat + 1)],
            "htsim": [htsim(scen, i) for i in range(1, repeat + 1)]}
    for tool, runs in rows.items():
        for r in runs:
            if r[6] != flows[scen]:
                sys.exit(f"htsim_compare: {tool} {scen}: {r[6]} of {flows[scen]} flows finished")
        cpu = med(runs, 0)
        print(f"| {scen} | {tool} | {cpu:.2f} | {med(runs, 1):.2f} | {med(runs, 2):.1f} |"
              f" {med(runs, 3):.1f} | {med(runs, 5):.0f} | {delivered / 1e6:.3f} M |"
              f" **{delivered / cpu / 1e6:.2f}** |")
    # CommLab counts every whole data packet a link carries: the delivered packet-hops plus at most
    # 12 per retransmitted packet (5 whole hops before a trim at the last one, 6 for the resend).
    # Anything else means the matrices hold other pairs than CommLab's.
    cl = rows["CommLab"][0]
    if not delivered <= cl[4] <= delivered + 12 * cl[5]:
        sys.exit(f"htsim_compare: {scen}: CommLab counted {cl[4]} data packet-hops, the pairs "
                 f"given to htsim need {delivered}: the pattern re-derivation is out of date")
    cpus = {tool: [round(r[0], 2) for r in runs] for tool, runs in rows.items()}
    ratios[scen] = (med(rows["CommLab"], 0) / med(rows["htsim"], 0), cpus["CommLab"], cpus["htsim"])
print()
for scen, (ratio, cl, ht) in ratios.items():
    print(f"{scen}: CPU time CommLab / htsim = {ratio:.3f} (htsim takes {1 / ratio:.1f}x the CPU);"
          f" CPU s per run: CommLab {cl}, htsim {ht};"
          f" CommLab's data_packet_hops {commlab(scen, 1)[4]}")
EOF
