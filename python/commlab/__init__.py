"""CommLab's engine from Python: codecs, collective plans with SkipReduce, trimmable packets and
the simulator, on NumPy buffers (torch tensors via .numpy()). See docs/python.md.

The PyTorch DDP communication hooks live in commlab.torch_hooks (imported on demand: it needs
torch)."""
from ._commlab import (  # noqa: F401
    Codec,
    InvalidInput,
    Plan,
    PlanStep,
    RankStepper,
    Transfer,
    Wire,
    algorithms,
    build_plan,
    codec_names,
    decide_skip,
    execute,
    lr_compensation,
    overlap_step,
    time_collective,
    time_workload,
    trim,
)


def skipreduce_plan(ranks, count, skip=0, policy="naive", seed=0, iteration=0, bucket=0,
                    bucket_name=None, unbiased=False, algorithm="ring",
                    protected_buckets=(), min_elements=100000):
    """The plan CommLab's trainer runs for one bucket: SkipReduce's (skip, rotation) derived from
    (seed, bucket, iteration) as every rank derives it, then the algorithm's steps."""
    name = bucket_name if bucket_name is not None else "bucket%d" % bucket
    s, rotation = decide_skip(skip, policy, seed, ranks, bucket, name, count, iteration,
                              unbiased, list(protected_buckets), min_elements)
    return build_plan(algorithm, "allreduce", ranks, count, s, rotation, unbiased)


def allreduce_reference(per_rank, plan, wire=None, iteration=0, bucket=0):
    """The engine's collective output for per-rank gradients (a (ranks, count) float32 array):
    execute() runs the simulated data plane (collective/simulated_executor.h); returns rank 0's buffer
    times 1/ranks in float32, the averaged gradient."""
    import numpy as np

    buffers = np.array(per_rank, dtype=np.float32, copy=True, order="C")
    execute(plan, buffers, wire, iteration, bucket)
    return buffers * np.float32(1.0 / plan.ranks)
