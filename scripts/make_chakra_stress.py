#!/usr/bin/env python3
"""Writes Chakra traces that stress the reader's memory, one per class:

  groups  PREFIX RANKS GROUPS  every rank file starts with a METADATA node defining GROUPS process
                               groups with "ranks": [] (each is every rank)
  fanin   PREFIX FANIN KEPT    one rank: FANIN compute nodes, a skipped METADATA node depending on
                               all of them, KEPT compute nodes depending on the skipped node
  plain   PREFIX NODES         one rank: NODES compute nodes in a chain, each named uniquely

Encoded by hand from the public et_def.proto field numbers (as tests/workload/chakra_wire.h)."""
import struct
import sys


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def field_u(n, v):
    return varint(n << 3) + varint(v)


def field_s(n, b):
    if isinstance(b, str):
        b = b.encode()
    return varint(n << 3 | 2) + varint(len(b)) + b


def frame(msg):
    return varint(len(msg)) + msg


def node(nid, name, ntype, data=(), micros=None, inputs=None):
    m = field_u(1, nid) + field_s(2, name) + field_u(3, ntype)
    if data:
        packed = b"".join(varint(d) for d in data)
        m += field_s(5, packed)
    if micros is not None:
        m += field_u(7, micros)
    if inputs is not None:
        m += field_s(8, field_s(1, inputs))
    return frame(m)


META = frame(field_s(1, "0.0.4"))
COMP, METADATA = 4, 1


def groups(prefix, ranks, count):
    pgs = ",".join('{"pg_name":"%d","ranks":[]}' % (k + 1) for k in range(count))
    body = META + node(1, "pg", METADATA, inputs="[\"[" + pgs + "]\"]") + node(2, "c", COMP, micros=1)
    for r in range(ranks):
        with open(f"{prefix}.{r}.et", "wb") as f:
            f.write(body if r == 0 else META + node(2, "c", COMP, micros=1))


def fanin(prefix, fan, kept):
    with open(f"{prefix}.0.et", "wb") as f:
        f.write(META)
        for i in range(fan):
            f.write(node(i + 1, "a", COMP, micros=1))
        skip = fan + 1
        f.write(node(skip, "m", METADATA, data=range(1, fan + 1)))
        for i in range(kept):
            f.write(node(skip + 1 + i, "b", COMP, data=[skip], micros=1))


def plain(prefix, count):
    with open(f"{prefix}.0.et", "wb") as f:
        f.write(META)
        buf = []
        for i in range(count):
            buf.append(node(i + 1, "n%d" % i, COMP, data=[i] if i else (), micros=1))
            if len(buf) == 65536:
                f.write(b"".join(buf))
                buf = []
        f.write(b"".join(buf))


if __name__ == "__main__":
    kind, prefix, *args = sys.argv[1:]
    {"groups": groups, "fanin": fanin, "plain": plain}[kind](prefix, *map(int, args))
