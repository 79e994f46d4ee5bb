"""Every door refuses the same things: the Python module's bad arguments raise
commlab.InvalidInput (a ValueError) naming the argument (.field) with the message commlab-cli
prints for the same value; none returns a number. Runs under pytest, or as a script."""
import math
import os
import subprocess
import sys

import pytest

commlab = pytest.importorskip("commlab")

CLI = os.environ.get("COMMLAB_CLI", "")


def workload_range(field, value, message):
    """A catalog workload argument outside its range: time_workload and the workload command's
    flag of the same name refuse it with the same message."""
    return ("workload %s %d" % (field, value),
            lambda: commlab.time_workload("llama3-8b", "flat:8", **{field: value}), field, message,
            ["workload", "--catalog", "llama3-8b", "--cluster", "flat:8",
             "--" + field.replace("_", "-"), str(value)])


# (what is called, the call, the field it must name, the message's start, the CLI command giving
# the same value, or None when the CLI has no such flag).
CASES = [
    ("bytes beyond 1 TiB", lambda: commlab.time_collective(bytes=2**64 - 1), "bytes",
     "expected 1 to 1099511627776 bytes per rank", None),
    ("zero bytes", lambda: commlab.time_collective(bytes=0), "bytes", "expected 1 to", None),
    ("element_bytes 0", lambda: commlab.time_collective(element_bytes=0), "element_bytes",
     "expected a number in (0, 8], got 0", None),
    ("element_bytes nan", lambda: commlab.time_collective(element_bytes=math.nan),
     "element_bytes", "expected a number in (0, 8], got nan", None),
    ("reduce_gbps negative", lambda: commlab.time_collective(reduce_gbps=-1), "reduce_gbps",
     "expected a finite number >= 0, got -1", None),
    ("skip beyond the ring's N-1", lambda: commlab.time_collective(ranks=8, skip=100), "skip",
     "ring on 8 ranks skips at most 7 steps",
     ["collective", "--ranks", "8", "--skip", "100", "--sizes", "1M:1M", "--time-only"]),
    ("skip beyond the tree's depth", lambda: commlab.time_collective(algorithm="tree", ranks=8,
                                                                    skip=4), "skip",
     "tree on 8 ranks skips at most 3",
     ["collective", "--algo", "tree", "--ranks", "8", "--skip", "4", "--sizes", "1M:1M",
      "--time-only"]),
    ("negative skip", lambda: commlab.time_collective(skip=-1), "skip",
     "expected a non-negative integer, got -1",
     ["collective", "--ranks", "8", "--skip", "-1", "--sizes", "1M:1M", "--time-only"]),
    ("unknown backend", lambda: commlab.time_collective(backend="bogus"), "backend",
     "expected analytical, packet or analytical+framing, got 'bogus'",
     ["collective", "--ranks", "8", "--backend", "bogus", "--sizes", "1M:1M", "--time-only"]),
    ("bandwidth 0", lambda: commlab.time_collective(bw_gbps=0), "bw_gbps",
     "expected a finite number > 0, got 0", None),
    ("latency nan", lambda: commlab.time_collective(alpha_us=math.nan), "alpha_us",
     "expected a finite number >= 0, got nan", None),
    ("no ranks", lambda: commlab.time_collective(ranks=0), "ranks",
     "expected 1 to 1048576 ranks, got 0",
     ["collective", "--ranks", "0", "--sizes", "1M:1M", "--time-only"]),
    ("unknown algorithm", lambda: commlab.time_collective(algorithm="bogus"), "algorithm",
     "unknown algorithm 'bogus'", None),
    ("unknown op", lambda: commlab.time_collective(op="bogus"), "op",
     "unknown operation 'bogus'", None),
    ("unknown skip policy", lambda: commlab.time_collective(policy="bogus"), "skip_policy",
     "unknown skip policy 'bogus'", None),
    ("build_plan skip beyond N-1", lambda: commlab.build_plan("ring", "allreduce", 4, 1024,
                                                              skip=10), "skip",
     "ring on 4 ranks skips at most 3 steps",
     ["collective", "--ranks", "4", "--skip", "10", "--sizes", "1M:1M", "--time-only"]),
    ("build_plan negative skip", lambda: commlab.build_plan(skip=-5), "skip",
     "expected a non-negative integer, got -5",
     ["collective", "--ranks", "2", "--skip", "-5", "--sizes", "1M:1M", "--time-only"]),
    ("build_plan rotation out of range", lambda: commlab.build_plan("ring", "allreduce", 4, 16,
                                                                   skip=1, rotation=4),
     "rotation", "expected 0 to ranks - 1 (3), got 4", None),
    ("decide_skip no ranks", lambda: commlab.decide_skip(0, "naive", 0, 0, 0, "b", 10, 0),
     "ranks", "expected at least 1 rank, got 0", None),
    ("decide_skip negative", lambda: commlab.decide_skip(-1, "naive", 0, 8, 0, "b", 10, 0),
     "skip", "expected 0 to ranks - 1 (7) steps on 8 ranks, got -1", None),
    ("decide_skip beyond N-1", lambda: commlab.decide_skip(100, "random", 0, 8, 0, "b", 10, 0),
     "skip", "expected 0 to ranks - 1 (7) steps on 8 ranks, got 100", None),
    ("overlap_step nan", lambda: commlab.overlap_step([(math.nan, 1.0, 0)], [1.0], [0.0]),
     "layers[0].forward_s", "expected a finite time >= 0", None),
    ("trim head bits beyond eden's 4", lambda: commlab.trim.TrimConfig("eden", head_bits=5),
     "head_bits", "encoding eden supports 1 to 4 bits, got 5", None),
    ("trim no head bits", lambda: commlab.trim.TrimConfig("sq", head_bits=0), "head_bits",
     "encoding sq supports 1 to 8 bits, got 0", None),
    ("trim unknown encoding", lambda: commlab.trim.TrimConfig("bogus"), "encoding",
     "unknown trim encoding 'bogus'", None),
    ("trim unknown wire", lambda: commlab.trim.TrimConfig(wire="fp8"), "wire",
     "unknown dtype 'fp8'", None),
    ("trim payload below one coordinate", lambda: commlab.trim.TrimConfig(payload_bytes=8),
     "payload_bytes", "a packet of 1 coordinates needs", None),
    ("trim more than 2^20 coordinates",
     lambda: commlab.trim.TrimConfig(payload_bytes=1 << 30, coords_per_packet=(1 << 20) + 1),
     "coords_per_packet", "at most 2^20 coordinates per packet", None),
    workload_range("tp", 0, "expected 1 to 4096, got 0"),
    workload_range("pp", 4097, "expected 1 to 4096, got 4097"),
    workload_range("micro_batch", 0, "expected 1 to 65536, got 0"),
    workload_range("global_batch", 0, "expected 1 to 16777216, got 0"),
    workload_range("dp", -1, "expected 0 to 1048576, got -1"),
    ("workload split beyond the cluster",
     lambda: commlab.time_workload("llama3-8b", "flat:8", tp=4, pp=4), "tp",
     "tp x pp = 16 exceeds the 8 GPUs of the cluster",
     ["workload", "--catalog", "llama3-8b", "--cluster", "flat:8", "--tp", "4", "--pp", "4"]),
    ("workload dp beyond the cluster",
     lambda: commlab.time_workload("llama3-8b", "flat:8", dp=4, tp=2, pp=2), "dp",
     "dp x tp x pp = 16 exceeds the 8 GPUs of the cluster",
     ["workload", "--catalog", "llama3-8b", "--cluster", "flat:8", "--dp", "4", "--tp", "2",
      "--pp", "2"]),
    ("workload heads over tp", lambda: commlab.time_workload("llama3-8b", "flat:24", tp=3),
     "tp", "llama3-8b: 32 heads do not split over tp=3",
     ["workload", "--catalog", "llama3-8b", "--cluster", "flat:24", "--tp", "3"]),
    ("workload global batch", lambda: commlab.time_workload("llama3-8b", "flat:8",
                                                            global_batch=3), "global_batch",
     "global batch 3 is not a multiple of dp*micro_batch = 2",
     ["workload", "--catalog", "llama3-8b", "--cluster", "flat:8", "--global-batch", "3"]),
    ("workload skip beyond the DP ring", lambda: commlab.time_workload("llama3-8b", "flat:8",
                                                                       skip=5), "skip",
     "the DP reduce-scatter's ring on 2 ranks skips at most 1",
     ["workload", "--catalog", "llama3-8b", "--cluster", "flat:8", "--skip", "5"]),
    ("workload unknown model", lambda: commlab.time_workload("bogus", "flat:8"), "catalog",
     "unknown workload 'bogus'",
     ["workload", "--catalog", "bogus", "--cluster", "flat:8"]),
    ("workload unknown engine", lambda: commlab.time_workload("llama3-8b", "flat:8",
                                                              engine="bogus"), "engine",
     "expected graph or sum, got 'bogus'",
     ["workload", "--catalog", "llama3-8b", "--cluster", "flat:8", "--engine", "bogus"]),
    ("workload unknown gpu", lambda: commlab.time_workload("llama3-8b", "flat:8", gpu="v100"),
     "gpu", "unknown GPU 'v100'",
     ["workload", "--catalog", "llama3-8b", "--cluster", "flat:8", "--gpu", "v100"]),
    workload_range("mfu", 0, "expected a number in (0, 1], got 0"),
    workload_range("ratio", 2, "expected a number in (0, 1], got 2"),
    ("workload ratio nan", lambda: commlab.time_workload("llama3-8b", "flat:8", ratio=math.nan),
     "ratio", "expected a number in (0, 1], got nan", None),
    ("workload codec time negative",
     lambda: commlab.time_workload("llama3-8b", "flat:8", codec_s_per_byte=-1),
     "codec_s_per_byte", "expected a finite number >= 0, got -1", None),
    ("overlap_step negative", lambda: commlab.overlap_step([(1.0, 1.0, 0)], [-1.0], [0.0]),
     "bucket_comm_s[0]", "expected a finite time >= 0", None),
]


@pytest.mark.parametrize("name,call,field,message,cli", CASES, ids=[c[0] for c in CASES])
def test_bad_argument_raises_invalid_input(name, call, field, message, cli):
    with pytest.raises(commlab.InvalidInput) as caught:
        result = call()
        pytest.fail("%s returned %r" % (name, result))
    error = caught.value
    assert isinstance(error, ValueError)
    assert error.field == field
    assert error.code == "bad_input"
    assert error.message.startswith(message), error.message
    # str() is the engine's one line: "field: message".
    assert str(error) == "%s: %s" % (field, error.message)
    if cli is None or not CLI:
        return
    run = subprocess.run([CLI] + cli, capture_output=True, text=True, timeout=60)
    assert run.returncode == 2, run.stderr
    # The CLI names the flag of the same field, then the same message; a value its flag parser
    # refuses (a range) ends with CLI11's hint " (see --help)".
    flag = "--" + field.replace("_", "-")
    line = "commlab-cli: %s: %s" % (flag, error.message)
    assert run.stderr in (line + "\n", line + " (see --help)\n"), run.stderr


# quantize names the same TrimConfig fields by its own flags, with the packet format's message.
@pytest.mark.parametrize("kwargs,flags,flag", [
    ({"encoding": "eden", "head_bits": 5}, ["--encoding", "eden", "--bits", "5"], "--bits"),
    ({"encoding": "sq", "payload_bytes": 8}, ["--encoding", "sq", "--payload", "8"], "--payload"),
])
def test_quantize_refuses_a_trim_config_as_python_does(kwargs, flags, flag):
    if not CLI:
        pytest.skip("COMMLAB_CLI is not set")
    with pytest.raises(commlab.InvalidInput) as caught:
        commlab.trim.TrimConfig(**kwargs)
    run = subprocess.run([CLI, "quantize"] + flags, capture_output=True, text=True, timeout=60)
    assert run.returncode == 2, run.stderr
    assert run.stderr == "commlab-cli: %s: %s\n" % (flag, caught.value.message)


def test_good_arguments_still_time():
    # Ring all-reduce on a flat network: 2 (N-1) steps.
    r = commlab.time_collective(ranks=8, bytes=1 << 20, skip=7)
    assert r["steps"] == 2 * 7 - 7
    assert r["time_s"] > 0


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-v", "-p", "no:cacheprovider"]))


# Lengths from outside are checked before they size anything: a receive shorter or longer than
# its transfer, on every wire, is refused (a 1-byte receive of a 16 MiB transfer read past the end).
@pytest.mark.parametrize("wire", [None, "bf16", "zstd-1", "trim"])
def test_a_receive_of_the_wrong_length_is_invalid_input(wire):
    import numpy as np
    wires = {None: None, "bf16": commlab.Wire.bf16(), "zstd-1": commlab.Wire.codec("zstd-1"),
             "trim": commlab.Wire.trim(payload_bytes=512)}
    plan = commlab.build_plan("ring", "allreduce", 4, 4 << 20)
    stepper = commlab.RankStepper(plan, 1, wires[wire])
    buf = np.ones(4 << 20, dtype=np.float32)
    i = stepper.recvs(0)[0]
    for received in (np.zeros(1, np.uint8), np.zeros(0, np.uint8)):
        with pytest.raises(commlab.InvalidInput):
            stepper.receive(0, i, buf, received)


@pytest.mark.parametrize("codec", ["netzip-lossless", "netzip-lossless-bits", "powersgd", "lz4"])
def test_empty_values_are_invalid_input(codec):
    import numpy as np
    with pytest.raises(commlab.InvalidInput):
        commlab.Codec(codec).encode(np.zeros(0, np.float32))
