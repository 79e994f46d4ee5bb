"""CommLab's engine from Python: codecs, collective plans with SkipReduce, trimmable packets and
the simulator, on NumPy buffers (torch tensors via .numpy()). See docs/python.md.

The PyTorch DDP communication hooks live in commlab.torch_hooks (imported on demand: it needs
torch)."""
from typing import TYPE_CHECKING, Optional, Sequence

import numpy as np

from ._version import __version__  # noqa: F401
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
    skip_limit,
    time_collective,
    time_workload,
    trim,
)

if TYPE_CHECKING:
    import numpy.typing as npt


__all__ = [
    "Codec", "InvalidInput", "Plan", "PlanStep", "RankStepper", "Transfer", "Wire", "__version__",
    "algorithms", "allreduce_reference", "build_plan", "codec_names", "decide_skip", "execute",
    "lr_compensation", "overlap_step", "skip_limit", "skipreduce_plan", "time_collective",
    "time_workload", "trim",
]


def skipreduce_plan(ranks: int, count: int, skip: int = 0, policy: str = "naive", seed: int = 0,
                    iteration: int = 0, bucket: int = 0, bucket_name: Optional[str] = None,
                    unbiased: bool = False, algorithm: str = "ring",
                    protected_buckets: Sequence[str] = (), min_elements: int = 100000) -> Plan:
    """The plan CommLab's trainer runs for one bucket: SkipReduce's (skip, rotation) derived from
    (seed, bucket, iteration) as every rank derives it, then the algorithm's steps."""
    name = bucket_name if bucket_name is not None else "bucket%d" % bucket
    s, rotation = decide_skip(skip, policy, seed, ranks, bucket, name, count, iteration,
                              unbiased, list(protected_buckets), min_elements)
    return build_plan(algorithm, "allreduce", ranks, count, s, rotation, unbiased)


def allreduce_reference(per_rank: "npt.ArrayLike", plan: Plan, wire: Optional[Wire] = None,
                        iteration: int = 0, bucket: int = 0) -> "npt.NDArray[np.float32]":
    """The engine's collective output for per-rank gradients (a (ranks, count) float32 array):
    execute() runs the simulated data plane (collective/simulated_executor.h); returns rank 0's buffer
    times 1/ranks in float32, the averaged gradient."""
    buffers = np.array(per_rank, dtype=np.float32, copy=True, order="C")
    execute(plan, buffers, wire, iteration, bucket)
    return buffers * np.float32(1.0 / plan.ranks)
