"""The names the engine takes, as Python enums. Each member is a str (a `str` subclass whose value
is the engine's spelling), so a member goes wherever a name does and plain strings are still
accepted: `time_collective(algorithm=Algorithm.TREE)` and `time_collective(algorithm="tree")` are
the same call."""
import enum

__all__ = ["Algorithm", "Backend", "DType", "Op", "SkipPolicy", "TrimEncoding"]


class _Name(str, enum.Enum):
    """A str-valued enum whose str() is the engine's spelling ("ring", not "Algorithm.RING")."""

    def __str__(self) -> str:
        return str(self.value)


class Algorithm(_Name):
    """Collective algorithms (commlab.algorithms() lists the same names)."""
    RING = "ring"
    TREE = "tree"
    HD = "hd"  # recursive halving-doubling
    HIER = "hier"  # hierarchical: inside nodes, then across them
    DIRECT = "direct"  # one-shot: every rank sends to every rank
    NCCL_TREE = "nccl-tree"


class Op(_Name):
    """Collective operations."""
    ALLREDUCE = "allreduce"
    REDUCESCATTER = "reducescatter"
    ALLGATHER = "allgather"
    BROADCAST = "broadcast"


class SkipPolicy(_Name):
    """Which contributions SkipReduce drops: always the same ranks (naive), a ring rotation drawn
    per iteration (random), or only buckets of at least min_elements (selective)."""
    NAIVE = "naive"
    RANDOM = "random"
    SELECTIVE = "selective"


class Backend(_Name):
    """Network models: alpha-beta with max-min sharing, the packet-level simulator, or alpha-beta
    with per-packet framing."""
    ANALYTICAL = "analytical"
    PACKET = "packet"
    ANALYTICAL_FRAMING = "analytical+framing"


class DType(_Name):
    """Wire element types of codecs and trimming."""
    FP32 = "fp32"
    BF16 = "bf16"
    FP16 = "fp16"


class TrimEncoding(_Name):
    """Heads of trimmable packets: stochastic quantization, DRIVE or EDEN."""
    SQ = "sq"
    DRIVE = "drive"
    EDEN = "eden"
