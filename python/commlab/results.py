"""What the simulator's functions return: small frozen records with a readable repr. Each also
answers `result["field"]` and `result.to_dict()`, so code written against plain dicts keeps
working."""
import dataclasses
from typing import Any, Dict, Mapping, Type, TypeVar

__all__ = ["CollectiveTime", "StepTime", "WorkloadTime"]

R = TypeVar("R", bound="_Record")


@dataclasses.dataclass(frozen=True)
class _Record:
    def __getitem__(self, key: str) -> Any:
        if key not in self.__dataclass_fields__:
            raise KeyError(key)
        return getattr(self, key)

    def to_dict(self) -> Dict[str, Any]:
        """The fields as a plain dict."""
        return dataclasses.asdict(self)

    @classmethod
    def _from(cls: Type[R], values: Mapping[str, Any]) -> R:
        """Built from the engine's dict; a key the record does not know (or a missing one) is a
        bug in the binding, reported as such."""
        names = set(cls.__dataclass_fields__)
        if set(values) != names:
            raise RuntimeError("commlab: %s expected fields %s, the engine gave %s" % (
                cls.__name__, sorted(names), sorted(values)))
        return cls(**values)


@dataclasses.dataclass(frozen=True)
class CollectiveTime(_Record):
    """One collective's simulated time (time_collective), as `commlab-cli collective --time-only`
    reports it."""
    time_s: float  # simulated seconds
    steps: int  # steps of the plan, SkipReduce's skipped ones left out
    bytes_on_wire: int  # summed over every rank's sends
    ranks: int
    backend: str
    algbw_gbps: float  # algorithm bandwidth: bytes per rank / time, in GB/s


@dataclasses.dataclass(frozen=True)
class WorkloadTime(_Record):
    """One training iteration of a catalog workload (time_workload), as `commlab-cli workload`
    reports it; the communication parts are the exposed ones."""
    iteration_s: float
    compute_s: float
    tp_s: float  # tensor parallelism
    dp_s: float  # data parallelism (the gradient all-reduce)
    pp_s: float  # pipeline parallelism
    ep_s: float  # expert parallelism (MoE all-to-alls)
    codec_s: float


@dataclasses.dataclass(frozen=True)
class StepTime(_Record):
    """A data-parallel step with its buckets' communication overlapping the backward pass
    (overlap_step): step_s = compute_s + comm_exposed_s + codec_exposed_s."""
    compute_s: float
    comm_total_s: float  # every bucket's communication, before overlap
    comm_exposed_s: float  # what the backward pass did not hide
    codec_exposed_s: float
    step_s: float
