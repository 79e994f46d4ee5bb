"""CommLab's engine from Python: codecs, collective plans with SkipReduce, trimmable packets and
the simulator, on NumPy buffers (torch tensors via .numpy()). See docs/python.md.

The PyTorch DDP communication hooks live in commlab.torch_hooks (imported on demand: it needs
torch)."""
from typing import TYPE_CHECKING, Optional, Sequence, Tuple, Union

import numpy as np

from . import _commlab
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
    codec_names,
    execute,
    lr_compensation,
    skip_limit,
    trim,
)
from .enums import Algorithm, Backend, DType, Op, SkipPolicy, TrimEncoding
from .results import CollectiveTime, StepTime, WorkloadTime

if TYPE_CHECKING:
    import numpy.typing as npt


__all__ = [
    "Algorithm", "Backend", "Codec", "CollectiveTime", "DType", "InvalidInput", "Op", "Plan",
    "PlanStep", "RankStepper", "SkipPolicy", "StepTime", "Transfer", "TrimEncoding", "Wire",
    "WorkloadTime", "__version__", "algorithms", "allreduce_reference", "build_plan",
    "codec_names", "decide_skip", "execute", "lr_compensation", "overlap_step", "skip_limit",
    "skipreduce_plan", "time_collective", "time_workload", "trim",
]

# A name the engine takes: the enum member or its string.
AlgorithmName = Union[Algorithm, str]


def time_collective(*, algorithm: AlgorithmName = Algorithm.RING,
                    op: Union[Op, str] = Op.ALLREDUCE, ranks: int = 8, bytes: int = 1 << 20,
                    cluster: str = "", backend: Union[Backend, str] = Backend.ANALYTICAL,
                    bw_gbps: float = 25.0, alpha_us: float = 5.0, skip: int = 0,
                    policy: Union[SkipPolicy, str] = SkipPolicy.NAIVE, seed: int = 0,
                    iteration: int = 0, unbiased: bool = False, element_bytes: float = 4.0,
                    reduce_gbps: float = 0.0, slice_bytes: int = 512 << 10,
                    chunk_bytes: int = 2 << 20) -> CollectiveTime:
    """Simulated time of one collective of `bytes` per rank, as `commlab-cli collective
    --time-only` computes it.

    The network is `cluster` (a cluster spec such as "fattree:k=8" or "dgx-h100-pod:nodes=2")
    or, when it is empty, a flat switch of `ranks` GPUs with `bw_gbps` Gb/s links and `alpha_us`
    latency, timed by `backend`. SkipReduce skips `skip` steps chosen by `policy` (with `seed`
    and `iteration`; `unbiased` rescales what is kept). `element_bytes` is the wire's bytes per
    element (4 for fp32, 2 for bf16, less for a codec's ratio); `reduce_gbps` charges the GPU's
    reduction (0: free); `slice_bytes` and `chunk_bytes` pipeline the steps as NCCL does.
    Raises InvalidInput (naming the argument) for anything commlab-cli refuses."""
    return CollectiveTime._from(_commlab.time_collective(
        algorithm, op, ranks, bytes, cluster, backend, bw_gbps, alpha_us, skip, policy, seed,
        iteration, unbiased, element_bytes, reduce_gbps, slice_bytes, chunk_bytes))


def time_workload(catalog: str = "gpt3-175b", cluster: str = "", *,
                  backend: Union[Backend, str] = Backend.ANALYTICAL, engine: str = "graph",
                  dp: int = 0, tp: int = 4, pp: int = 1, micro_batch: int = 1,
                  global_batch: int = 128, gpu: str = "h100", mfu: float = 0.4,
                  ratio: float = 1.0, skip: int = 0,
                  codec_s_per_byte: float = 0.0) -> WorkloadTime:
    """One training iteration of catalog model `catalog` on `cluster`, as `commlab-cli workload`
    computes it: data (`dp`, 0: what the cluster leaves), tensor (`tp`) and pipeline (`pp`)
    parallelism; `engine` "graph" replays per-rank graphs, "sum" adds the parts. `ratio` scales
    the data-parallel gradient bytes (a codec), `skip` is SkipReduce's s on them and
    `codec_s_per_byte` the codec's time. Raises InvalidInput for anything commlab-cli refuses."""
    return WorkloadTime._from(_commlab.time_workload(
        catalog, cluster, backend, engine, dp, tp, pp, micro_batch, global_batch, gpu, mfu, ratio,
        skip, codec_s_per_byte))


def overlap_step(layers: Sequence[Tuple[float, float, int]], bucket_comm_s: Sequence[float],
                 bucket_codec_s: Sequence[float]) -> StepTime:
    """A DDP step: `layers` are (forward_s, backward_s, bucket) in forward order (bucket -1: the
    layer has none); each bucket's communication (`bucket_comm_s`) and codec time
    (`bucket_codec_s`) starts when the backward pass has produced it, so only what the rest of
    the backward pass does not hide is exposed. Raises InvalidInput for a negative or non-finite
    time or a bucket index out of range."""
    return StepTime._from(_commlab.overlap_step(layers, bucket_comm_s, bucket_codec_s))


def decide_skip(skip: int, policy: Union[SkipPolicy, str], seed: int, ranks: int, bucket: int,
                bucket_name: str, elements: int, iteration: int, *, unbiased: bool = False,
                protected_buckets: Sequence[str] = (), min_elements: int = 100000,
                segment: int = 0) -> Tuple[int, int]:
    """SkipReduce's (skip, rotation) for one collective call of bucket `bucket` (`elements`
    values) at `iteration`, as every rank derives it from `seed` alone: `policy` "selective"
    skips only buckets of at least `min_elements` values, `protected_buckets` never skip; the
    rotation is the ring position random skipping starts from."""
    return _commlab.decide_skip(skip, policy, seed, ranks, bucket, bucket_name, elements,
                                iteration, unbiased, list(protected_buckets), min_elements,
                                segment)


def build_plan(algorithm: AlgorithmName = Algorithm.RING, op: Union[Op, str] = Op.ALLREDUCE,
               ranks: int = 2, count: int = 0, *, skip: int = 0, rotation: int = 0,
               unbiased: bool = False, ranks_per_node: int = 1, time_only: bool = False) -> Plan:
    """The steps of collective `op` of `count` float32 values on `ranks` ranks with
    `algorithm`, SkipReduce's `skip` steps (from `rotation`) left out; `ranks_per_node` for the
    hierarchical algorithms, `time_only` folds identical steps (no data plane)."""
    return _commlab.build_plan(algorithm, op, ranks, count, skip, rotation, unbiased,
                               ranks_per_node, time_only)


def skipreduce_plan(ranks: int, count: int, skip: int = 0,
                    policy: Union[SkipPolicy, str] = SkipPolicy.NAIVE, seed: int = 0,
                    iteration: int = 0, bucket: int = 0, bucket_name: Optional[str] = None,
                    unbiased: bool = False, algorithm: AlgorithmName = Algorithm.RING,
                    protected_buckets: Sequence[str] = (), min_elements: int = 100000) -> Plan:
    """The plan CommLab's trainer runs for one bucket: SkipReduce's (skip, rotation) derived from
    (seed, bucket, iteration) as every rank derives it, then the algorithm's steps."""
    name = bucket_name if bucket_name is not None else "bucket%d" % bucket
    s, rotation = decide_skip(skip, policy, seed, ranks, bucket, name, count, iteration,
                              unbiased=unbiased, protected_buckets=protected_buckets,
                              min_elements=min_elements)
    return build_plan(algorithm, Op.ALLREDUCE, ranks, count, skip=s, rotation=rotation,
                      unbiased=unbiased)


def allreduce_reference(per_rank: "npt.ArrayLike", plan: Plan, wire: Optional[Wire] = None,
                        iteration: int = 0, bucket: int = 0) -> "npt.NDArray[np.float32]":
    """The engine's collective output for per-rank gradients (a (ranks, count) float32 array):
    execute() runs the simulated data plane (collective/simulated_executor.h); returns rank 0's buffer
    times 1/ranks in float32, the averaged gradient."""
    buffers = np.array(per_rank, dtype=np.float32, copy=True, order="C")
    execute(plan, buffers, wire, iteration, bucket)
    return buffers * np.float32(1.0 / plan.ranks)
