#!/usr/bin/python3
"""Writes the tensor-file fixtures of tests/data/tensors/ (run once; the outputs are committed).

The .npy files are written by NumPy itself (np.lib.format.write_array, format versions 1.0, 2.0 and
3.0). The .safetensors file is written byte by byte with struct + json, following the format's
specification (8-byte little-endian header length, JSON header, data buffer), because neither the
safetensors package nor torch is installed here. Values follow formulas the tests check exactly:
  grad_fp32_v1.npy   float32 (64, 32), C order:  v[i] = (i - 1000) * 2**-10
  grad_fp16_v2.npy   float16 (100,):             v[i] = i * 0.25
  cols_fp32_v3.npy   float32 (3, 4), Fortran order, a[r, c] = 10 r + c, stored column by column
  model.safetensors  b.weight F32 [3, 5] w[i] = i - 7; a.weight BF16 [4, 8] w[i] = (i - 16) * 0.5;
                     a.bias F16 [8] b[i] = -i; header keys not in offset order; __metadata__
  dump.bf16          raw BF16, 16 values v[i] = i + 1 (read with --dtype bf16)
Run: /usr/bin/python3 tests/data/make_tensor_fixtures.py  (from the repository root)
"""
import json
import os
import struct

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tensors")


def write_npy(name, array, version, fortran=False):
    with open(os.path.join(OUT, name), "wb") as f:
        np.lib.format.write_array(f, np.asfortranarray(array) if fortran else array,
                                  version=version)


def bf16_bytes(values):
    # The values are exact in BF16, so the upper half of the FP32 pattern is the BF16 pattern.
    bits = np.asarray(values, dtype="<f4").view("<u4") >> 16
    return bits.astype("<u2").tobytes()


def write_safetensors(name):
    parts = [  # (key, dtype, shape, bytes), in data-buffer order
        ("b.weight", "F32", [3, 5], (np.arange(15, dtype="<f4") - 7).tobytes()),
        ("a.weight", "BF16", [4, 8], bf16_bytes((np.arange(32) - 16) * 0.5)),
        ("a.bias", "F16", [8], (-np.arange(8)).astype("<f2").tobytes()),
    ]
    header, offset = {}, 0
    for key, dtype, shape, data in parts:
        header[key] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
    ordered = {"__metadata__": {"format": "pt", "source": "make_tensor_fixtures.py"}}
    for key in sorted(header):  # a.bias, a.weight, b.weight: not the buffer order
        ordered[key] = header[key]
    text = json.dumps(ordered, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # the reference writer pads the header to 8 bytes
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(p[3] for p in parts))


def main():
    os.makedirs(OUT, exist_ok=True)
    write_npy("grad_fp32_v1.npy", ((np.arange(2048) - 1000) * 2.0**-10).astype("<f4").reshape(64, 32),
              (1, 0))
    write_npy("grad_fp16_v2.npy", (np.arange(100) * 0.25).astype("<f2"), (2, 0))
    write_npy("cols_fp32_v3.npy", np.fromfunction(lambda r, c: 10 * r + c, (3, 4), dtype="<f4"),
              (3, 0), fortran=True)
    write_safetensors("model.safetensors")
    with open(os.path.join(OUT, "dump.bf16"), "wb") as f:
        f.write(bf16_bytes(np.arange(16) + 1))


if __name__ == "__main__":
    main()
