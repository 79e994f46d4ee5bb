#!/usr/bin/env python3
"""The NCCL-model tables of docs/collectives.md ("NCCL's model"): what `collective --algo auto
--proto auto` chooses and times for all-reduce on 8 x H100 nodes (dgx-h100-pod), 8 B to 8 GiB,
next to NCCL's own predicted time; and where the ring overtakes the tree for 2-16 nodes.

  python3 bench/collective/nccl_curves.py [build/app/commlab-cli]
"""
import json
import subprocess
import sys

C = sys.argv[1] if len(sys.argv) > 1 else "build/app/commlab-cli"
def rows(n, algo='auto'):
    out = subprocess.run([C,'collective','--algo',algo,'--proto','auto','--cluster',f'dgx-h100-pod:nodes={n}','--sizes','8:8G','--time-only','--json'],capture_output=True,text=True,check=True).stdout
    return json.loads(out)['rows']
def human(b):
    for u,s in (('G',1<<30),('M',1<<20),('K',1<<10)):
        if b>=s: return f"{b//s}{u}"
    return str(b)
print("| GPUs | size | choice (algo proto channels) | time us | NCCL model us | busbw GB/s |")
print("|---|---|---|---|---|---|")
for n in (1,2,16):
    for r in rows(n):
        if r['size_bytes'] in (8, 64<<10, 1<<20, 16<<20, 256<<20, 8<<30):
            print(f"| {8*n} | {human(r['size_bytes'])} | {r['algo']} {r['proto']} {r['channels']} | {r['time_us']:.1f} | {r['nccl_model_us']:.1f} | {r['busbw_gbps']:.1f} |")
print()
print("| nodes (x 8 H100) | ring beats tree from | tree busbw at 16 MiB | ring busbw at 16 MiB | ring busbw at 8 GiB |")
print("|---|---|---|---|---|")
for n in (2,4,8,16):
    ring = rows(n,'ring'); tree = rows(n,'tree')
    cross = next((r['size_bytes'] for r,t in zip(ring,tree) if r['time_us'] < t['time_us'] and r['size_bytes']>=(1<<20)), None)
    t16 = next(t for t in tree if t['size_bytes']==16<<20); r16 = next(r for r in ring if r['size_bytes']==16<<20)
    r8g = ring[-1]
    print(f"| {n} | {human(cross) if cross else 'never up to 8G'} | {t16['busbw_gbps']:.1f} | {r16['busbw_gbps']:.1f} | {r8g['busbw_gbps']:.1f} |")
