"""The package's shape as PyTorch users expect it: enums whose members are the engine's names
(strings still accepted), typed results with a readable repr, keyword-only arguments after the
first few, and a docstring on every public function. Runs under pytest."""
import dataclasses
import inspect

import pytest

np = pytest.importorskip("numpy")
commlab = pytest.importorskip("commlab")


def test_algorithm_members_are_exactly_the_engines_algorithms():
    # A new algorithm in the engine without its member (or a member the engine dropped) fails.
    assert {a.value for a in commlab.Algorithm} == set(commlab.algorithms())


@pytest.mark.parametrize("algorithm", list(commlab.Algorithm))
def test_every_algorithm_member_times_a_collective(algorithm):
    ranks = 8  # whole nodes of the hierarchical algorithms' default 1 GPU per node
    t = commlab.time_collective(algorithm=algorithm, ranks=ranks, bytes=1 << 20)
    assert t.time_s > 0 and t.ranks == ranks


@pytest.mark.parametrize("op", list(commlab.Op))
def test_every_op_member_builds_a_ring_plan(op):
    plan = commlab.build_plan(commlab.Algorithm.RING, op, 4, 64)
    assert plan.op == op.value and plan.ranks == 4


@pytest.mark.parametrize("policy", list(commlab.SkipPolicy))
def test_every_policy_member_decides_a_skip(policy):
    # selective skips only buckets of at least min_elements values: 10**6 is one.
    skip, rotation = commlab.decide_skip(1, policy, 7, 8, 0, "b", 10**6, 3)
    assert skip == 1 and 0 <= rotation < 8


@pytest.mark.parametrize("backend", list(commlab.Backend))
def test_every_backend_member_times_a_collective(backend):
    assert commlab.time_collective(backend=backend, ranks=4, bytes=1 << 16).time_s > 0


@pytest.mark.parametrize("dtype", list(commlab.DType))
def test_every_dtype_member_is_a_wire(dtype):
    # lz4 is lossless on its bytes; the wire is lossless only when float32 values travel as they
    # are (fp32), bf16 and fp16 round them first.
    assert commlab.Wire.codec("lz4", dtype).lossless == (dtype is commlab.DType.FP32)


def test_a_dtype_that_is_no_member_is_refused():
    with pytest.raises(commlab.InvalidInput):
        commlab.Wire.codec("lz4", "fp64")


@pytest.mark.parametrize("encoding", list(commlab.TrimEncoding))
def test_every_trim_encoding_member_configures_packets(encoding):
    assert commlab.trim.TrimConfig(encoding=encoding).encoding == encoding.value


def test_members_are_the_names_and_strings_still_work():
    assert str(commlab.Algorithm.NCCL_TREE) == "nccl-tree"
    assert commlab.SkipPolicy("random") is commlab.SkipPolicy.RANDOM
    by_member = commlab.time_collective(algorithm=commlab.Algorithm.TREE, skip=1,
                                        policy=commlab.SkipPolicy.RANDOM)
    by_string = commlab.time_collective(algorithm="tree", skip=1, policy="random")
    assert by_member == by_string


def test_results_are_typed_records_that_still_read_as_dicts():
    t = commlab.time_collective(ranks=8, bytes=1 << 20)
    assert isinstance(t, commlab.CollectiveTime)
    # A ring all-reduce on 8 ranks: 2 (N - 1) = 14 steps, each rank sending 2 (N - 1) / N of its
    # 1 MiB: 8 x 14 x 128 KiB = 14 MiB on the wire.
    assert t.steps == 14 and t["steps"] == 14
    assert t.bytes_on_wire == 8 * 14 * (1 << 17) == t.to_dict()["bytes_on_wire"]
    assert repr(t).startswith("CollectiveTime(time_s=")
    with pytest.raises(KeyError):
        t["nonexistent"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        t.steps = 0
    s = commlab.overlap_step([(1e-3, 2e-3, 0)], [5e-3], [0.0])
    # Backward of the only layer ends at 3 ms, then its bucket's 5 ms: step = 3 + 5 ms.
    assert isinstance(s, commlab.StepTime)
    assert s.step_s == pytest.approx(8e-3) and s.comm_exposed_s == pytest.approx(5e-3)
    w = commlab.time_workload("gpt-7b", "netzip-512:gbps=400", engine="sum", tp=4)
    assert isinstance(w, commlab.WorkloadTime) and w.iteration_s > w.compute_s > 0


def test_long_signatures_take_their_options_by_keyword_only():
    with pytest.raises(TypeError):
        commlab.time_collective("ring", "allreduce", 8)
    with pytest.raises(TypeError):
        commlab.build_plan("ring", "allreduce", 4, 64, 1)  # skip must be named
    with pytest.raises(TypeError):
        commlab.decide_skip(1, "random", 7, 8, 0, "b", 10**6, 3, True)  # unbiased must be named


def test_every_public_function_and_class_has_a_docstring():
    missing = [name for name in commlab.__all__
               if (inspect.isroutine(getattr(commlab, name)) or
                   inspect.isclass(getattr(commlab, name)))
               and not (getattr(commlab, name).__doc__ or "").strip()]
    assert missing == []
