"""The engine from typed Python: a SkipReduce plan run on real buffers, the time of the same
collective on a simulated cluster, and a refused argument, checked by mypy --strict against the
package's stubs (python/tests/test_packaging.py).

    PYTHONPATH=build/python /usr/bin/python3 examples/typed_api.py"""
import numpy as np

import commlab


def main() -> None:
    ranks, count = 8, 1 << 12
    plan: commlab.Plan = commlab.skipreduce_plan(ranks, count, skip=2,
                                                 policy=commlab.SkipPolicy.RANDOM, seed=7)
    grads = np.random.default_rng(0).standard_normal((ranks, count)).astype(np.float32)
    averaged = commlab.allreduce_reference(grads, plan)
    error = float(np.abs(averaged - grads.mean(axis=0)).max())
    timing: commlab.CollectiveTime = commlab.time_collective(ranks=ranks, bytes=count * 4, skip=2,
                                                             policy="random", seed=7)
    limit: int = commlab.skip_limit("tree", ranks)
    print("dropped %d contributions; max |error| %.3g; %.1f us on %d ranks; tree skips <= %d"
          % (len(plan.dropped), error, timing.time_s * 1e6, timing.ranks, limit))
    try:
        commlab.time_collective(ranks=ranks, skip=ranks)
    except commlab.InvalidInput as e:
        print("refused %s: %s" % (e.field, e.message))


if __name__ == "__main__":
    main()
