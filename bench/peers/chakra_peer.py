#!/usr/bin/env python3
"""Chakra trace helpers for the side-by-side with ASTRA-sim (bench/peers/astra_sim_compare.sh).

  micro  PREFIX RANKS OP BYTES    one collective per rank (OP: all_reduce, reduce_scatter,
                                  all_gather, all_to_all), comm_size BYTES, no process group (every
                                  rank), as ASTRA-sim's microbenchmark generator scripts write them
  pin    IN OUT FLOPS HBM         copy trace IN to OUT with every compute node's time as a
                                  duration in whole microseconds (duration_micros): a roofline
                                  node's max(flops / FLOPS, bytes / HBM) (train/compute_model's
                                  formula, FLOPS = peak BF16 x MFU in FLOP/s, HBM in B/s), a timed
                                  node's commlab_duration_s; the exact attributes are dropped and
                                  the communicator-group file is copied
  astra  LOG RANKS                the iteration of an ASTRA-sim run: the largest
                                  "sys[N] finished, T cycles" (ns), in seconds; nan unless all
                                  RANKS ranks printed theirs
  rusage FILE                     wall seconds and peak RSS (MB) from /usr/bin/time -v's output

Both tools then replay the same integer durations, so the comparison measures communication and
issue order, not two compute models. Needs the Python module protoc writes from the project's
core/workload/chakra/et_def.proto (et_def_pb2) on sys.path: the .sh puts it there."""
import os
import re
import shutil
import sys

DROPPED = ("num_ops", "tensor_size", "commlab_flops", "commlab_mem_bytes", "commlab_duration_s")
OPS = {"all_reduce": 0, "all_gather": 2, "all_to_all": 6, "reduce_scatter": 7}


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def read_messages(path):
    """The length-prefixed messages of one rank file, as bytes."""
    with open(path, "rb") as f:
        data = f.read()
    pos, out = 0, []
    while pos < len(data):
        length, shift = 0, 0
        while True:
            b = data[pos]
            pos += 1
            length |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                break
        out.append(data[pos:pos + length])
        pos += length
    return out


def write_messages(path, messages):
    with open(path, "wb") as f:
        for m in messages:
            raw = m.SerializeToString()
            f.write(varint(len(raw)))
            f.write(raw)


def rank_files(prefix):
    files = []
    while os.path.exists(f"{prefix}.{len(files)}.et"):
        files.append(f"{prefix}.{len(files)}.et")
    if not files:
        sys.exit(f"{prefix}.0.et: no such trace file")
    return files


def micro(pb, prefix, ranks, op, size):
    if op not in OPS:
        sys.exit(f"micro: unknown op {op} (expected {', '.join(OPS)})")
    for r in range(int(ranks)):
        meta = pb.GlobalMetadata(version="0.0.4")
        node = pb.Node(id=0, name=f"{op}_{size}", type=pb.COMM_COLL_NODE)
        node.attr.add(name="is_cpu_op", bool_val=False)
        node.attr.add(name="comm_type", int64_val=OPS[op])
        node.attr.add(name="comm_size", int64_val=int(size))
        write_messages(f"{prefix}.{r}.et", [meta, node])


def attr_number(a):
    kind = a.WhichOneof("value")
    return float(getattr(a, kind)) if kind else 0.0


def pin(pb, src, dst, flops_per_s, hbm_bps):
    flops_per_s, hbm_bps = float(flops_per_s), float(hbm_bps)
    pinned = 0
    for r, path in enumerate(rank_files(src)):
        raw = read_messages(path)
        meta = pb.GlobalMetadata()
        meta.ParseFromString(raw[0])
        out = [meta]
        for blob in raw[1:]:
            node = pb.Node()
            node.ParseFromString(blob)
            attrs = {a.name: a for a in node.attr}
            if node.type == pb.COMP_NODE and "commlab_duration_s" in attrs:
                seconds = attrs["commlab_duration_s"].double_val
            elif node.type == pb.COMP_NODE and node.duration_micros == 0 and (
                    "num_ops" in attrs or "commlab_flops" in attrs):
                # The exact values CommLab writes beside the rounded num_ops / tensor_size.
                flops = attr_number(attrs.get("commlab_flops", attrs.get("num_ops")))
                mem = attr_number(attrs.get("commlab_mem_bytes", attrs.get("tensor_size")))
                seconds = max(flops / flops_per_s, mem / hbm_bps)
            else:
                seconds = None
            if seconds is not None:
                keep = [a for a in node.attr if a.name not in DROPPED]
                del node.attr[:]
                node.attr.extend(keep)
                node.duration_micros = round(seconds * 1e6)
                pinned += 1
            out.append(node)
        write_messages(f"{dst}.{r}.et", out)
    for suffix in (".comm_groups.json", ".json"):
        if os.path.exists(src + suffix):
            shutil.copyfile(src + suffix, dst + suffix)
    print(f"pinned {pinned} compute nodes", file=sys.stderr)


def astra(log, ranks):
    """Every rank's line must be there: ASTRA-sim can abort after printing them (or before)."""
    with open(log, errors="replace") as f:
        finished = {int(m.group(1)): int(m.group(2)) for m in
                    re.finditer(r"sys\[(\d+)\] finished, (\d+) cycles", f.read())}
    print(f"{max(finished.values()) * 1e-9:.9g}" if len(finished) == int(ranks) else "nan")


def rusage(path):
    wall, rss = float("nan"), float("nan")
    with open(path, errors="replace") as f:
        for line in f:
            line = line.strip()
            if line.startswith("Elapsed (wall clock) time"):
                parts = [float(p) for p in line.rsplit(" ", 1)[1].split(":")]
                wall = sum(p * 60 ** i for i, p in enumerate(reversed(parts)))
            elif line.startswith("Maximum resident set size"):
                rss = int(line.rsplit(" ", 1)[1]) / 1024
    print(f"{wall:.2f} {rss:.0f}")


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    cmd, args = argv[1], argv[2:]
    if cmd == "astra" and len(args) == 2:
        return astra(*args)
    if cmd == "rusage" and len(args) == 1:
        return rusage(*args)
    import et_def_pb2 as pb  # generated by protoc from core/workload/chakra/et_def.proto
    if cmd == "micro" and len(args) == 4:
        return micro(pb, *args)
    if cmd == "pin" and len(args) == 4:
        return pin(pb, *args)
    sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
