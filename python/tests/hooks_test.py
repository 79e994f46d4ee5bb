"""The DDP hooks against the engine: 2 and 4 gloo processes train a small model for two
iterations under each hook; each returns futures still pending (its communication thread is held
until the iteration's last bucket has been handed over), and every bucket's averaged gradient must
equal CommLab's collective output (commlab.allreduce_reference: the simulated executor on the same
per-rank gradients, seed and iteration) bit for bit for every SkipReduce policy, each lossless
codec and Bernoulli or mask-given trimming, and be within the trimming encoding's documented error
of the exact mean. Runs under pytest (ctest python.hooks_test); skipped with the reason when torch
or the built module is missing."""
import importlib.util
import os
import pickle
import socket
import tempfile
import threading

import pytest

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")
commlab = pytest.importorskip("commlab")
ch = pytest.importorskip("commlab.torch_hooks")
dist = torch.distributed
mp = torch.multiprocessing

ITERATIONS = 2
EDEN_1BIT_VNMSE = 0.5708  # docs/formats.md: D_1 / (1 - D_1), unbiased EDEN, 1 head bit


def lossless_codecs():
    """Every registry codec that is lossless and may sit on a transfer (stateless), with the
    dtype it codes: fp32 where it takes it, else bf16 (NetZIP's codecs are for BF16 traffic)."""
    out = []
    for name in commlab.codec_names():
        codec = commlab.Codec(name)
        if not codec.lossless:
            continue
        try:
            commlab.Wire.codec(name)
        except ValueError:  # stateful (xor-prev): refused on transfers
            continue
        try:
            codec.encode(np.zeros(8, dtype=np.float32))
            out.append((name, "fp32"))
        except ValueError:  # InvalidInput: the codec does not take fp32 values
            out.append((name, "bf16"))
    return out


def trim_all(key):
    return np.ones(key["packets"], dtype=np.uint8)


def cases(world):
    """(name, state factory, exact, reference wire factory): exact cases must match the engine
    bit for bit (on the state's wire unless a reference wire is given)."""
    out = [("fp32", lambda: ch.CommLabState(), True)]
    for policy in ("naive", "random", "selective"):
        for skip in range(1, world):
            out.append(("skip%d-%s" % (skip, policy),
                        lambda s=skip, p=policy: ch.skipreduce_state(s, p, seed=11,
                                                                     min_elements=50), True))
    out.append(("skip1-random-unbiased",
                lambda: ch.skipreduce_state(1, "random", seed=5, unbiased=True), True))
    for name, dtype in lossless_codecs():
        out.append(("codec-%s-%s" % (name, dtype), lambda n=name, d=dtype: ch.codec_state(n, d),
                    True))
    out.append(("codec-zstd-3-bf16", lambda: ch.codec_state("zstd-3", "bf16"), True))
    small = dict(payload_bytes=256)  # several packets per chunk on this small model
    out.append(("trim-bernoulli", lambda: ch.trim_state(rate=0.3, trim_seed=9, **small), True))
    # A mask equal to the engine's draws must give the Bernoulli run's bytes exactly.
    out.append(("trim-mask-bernoulli",
                lambda: ch.trim_state(mask=lambda key: key["bernoulli"](0.3, 9), **small), True,
                lambda: commlab.Wire.trim(payload_bytes=256, rate=0.3, trim_seed=9)))
    out.append(("trim-mask-all", lambda: ch.trim_state(mask=trim_all, **small), False))
    return [case + (None,) * (4 - len(case)) for case in out]


def model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(24, 32), torch.nn.ReLU(), torch.nn.Linear(32, 5))


def worker(rank, world, port, out_dir):
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port, rank=rank,
                            world_size=world)
    torch.set_num_threads(1)
    results = {}
    for name, make_state, _, _ in cases(world):
        ddp = torch.nn.parallel.DistributedDataParallel(model(), bucket_cap_mb=0.002)
        records, pending = [], []
        state = make_state()
        # The communication thread waits for the gate, which opens once the last bucket's hook
        # has returned: every hook of an iteration must then hand back a future not yet done.
        state.gate = threading.Event()

        def recording_hook(state, bucket):
            before = (state.iteration, bucket.index(), bucket.buffer().detach().clone().numpy())
            future = ch.commlab_hook(state, bucket)
            pending.append(not future.done())
            if bucket.is_last():
                state.gate.set()

            def record(done):
                averaged = done.value()
                records.append(before + (averaged.numpy().copy(),))
                return averaged

            return future.then(record)

        ddp.register_comm_hook(state, recording_hook)
        gen = torch.Generator().manual_seed(1000 * rank + 1)
        for _ in range(ITERATIONS):
            ddp.zero_grad()
            state.gate.clear()
            x = torch.randn(16, 24, generator=gen)
            y = torch.randint(0, 5, (16,), generator=gen)
            torch.nn.functional.cross_entropy(ddp(x), y).backward()
        results[name] = (records, pending)
    results["queued"] = queued_buckets(rank, world)
    with open(os.path.join(out_dir, "rank%d.pkl" % rank), "wb") as f:
        pickle.dump(results, f)
    dist.destroy_process_group()


class FakeBucket:
    """What commlab_hook reads of DDP's GradBucket."""

    def __init__(self, index, last, values):
        self._index, self._last, self._values = index, last, values

    def index(self):
        return self._index

    def is_last(self):
        return self._last

    def buffer(self):
        return self._values


def queued_buckets(rank, world):
    """Two buckets handed to the hook while its communication thread is held: both futures pending
    on return (the second bucket queued behind the first), then both complete with the mean."""
    state = ch.CommLabState()
    state.gate = threading.Event()
    # rank r holds (r + 1) * k: the mean is (N + 1) / 2 * k, exact in float32 for these sizes.
    futures = [ch.commlab_hook(state, FakeBucket(b, b == 1, torch.arange(
        1000, dtype=torch.float32) * (rank + 1) * (b + 1))) for b in range(2)]
    pending = [not f.done() for f in futures]
    state.gate.set()
    outputs = [f.wait().numpy().copy() for f in futures]
    # A plan that raises on the thread fails its future with that error (every rank raises at
    # its first encode, before any message), and the thread goes on with the next bucket.
    bad = ch.trim_state(mask=lambda key: np.ones(1, dtype=np.uint8), payload_bytes=256)
    try:
        ch.commlab_hook(bad, FakeBucket(0, True, torch.ones(1000))).wait()
        error = None
    except Exception as e:  # noqa: BLE001 (what the future re-raises is the test's subject)
        error = str(e)
    after = ch.commlab_hook(ch.CommLabState(), FakeBucket(0, True, torch.ones(1000))).wait()
    return pending, outputs, state.iteration, error, after.numpy().copy()


WORLDS = (2, 4)
_RUNS = {}


def ranks_of(world):
    """Every rank's records of a `world`-process run of every case (spawned once per world)."""
    if world not in _RUNS:
        with tempfile.TemporaryDirectory() as out_dir:
            mp.spawn(worker, args=(world, free_port(), out_dir), nprocs=world)
            ranks = []
            for r in range(world):
                with open(os.path.join(out_dir, "rank%d.pkl" % r), "rb") as f:
                    ranks.append(pickle.load(f))
        _RUNS[world] = ranks
    return _RUNS[world]


@pytest.mark.parametrize("world", WORLDS)
def test_held_buckets_are_pending_then_averaged_exactly(world):
    for r, rank in enumerate(ranks_of(world)):
        pending, outputs, iteration, error, after = rank["queued"]
        # A failing plan fails its own future with the error and the next bucket still averages.
        assert error is not None and "mask" in error, "rank %d: error %r" % (r, error)
        assert np.array_equal(after, np.ones(1000)), "rank %d: next bucket wrong" % r
        for b, out in enumerate(outputs):
            # rank r holds (r + 1) (b + 1) k: the mean is (N + 1) / 2 (b + 1) k, exact in float32.
            want = np.arange(1000, dtype=np.float32) * np.float32((world + 1) / 2 * (b + 1))
            assert np.array_equal(out, want), "rank %d bucket %d not the mean" % (r, b)
        # The hook advances the iteration when it is handed the last bucket: 0 -> 1.
        assert pending == [True, True] and iteration == 1, (r, pending, iteration)


def example_module():
    """examples/pytorch/train_fashion_mnist.py, whose ping-pong fit these tests check."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                        "pytorch", "train_fashion_mnist.py")
    spec = importlib.util.spec_from_file_location("train_fashion_mnist", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    return example


def test_network_fit_of_an_exact_line():
    example = example_module()
    sizes = example.PING_PONG_SIZES
    # t = 20 us + bytes / (5 GB/s) exactly: the fit returns alpha 20 us, 5 GB/s, R^2 1.
    alpha, bandwidth, r2, reason = example.fit_network(sizes, [20e-6 + n / 5e9 for n in sizes])
    assert reason is None
    assert abs(alpha - 20e-6) <= 1e-12
    assert abs(bandwidth - 5.0) <= 1e-9
    assert r2 >= 1 - 1e-12


@pytest.mark.parametrize("word", ["slope", "bandwidth", "R^2"])
def test_network_fit_refuses(word):
    example = example_module()
    sizes = example.PING_PONG_SIZES
    times = {
        "slope": [1e-3 - n * 1e-11 for n in sizes],  # falls with size
        "bandwidth": [20e-6 + n / 5e14 for n in sizes],  # 500,000 GB/s
        "R^2": [1e-3 if k % 2 else 1e-4 for k in range(len(sizes))],  # alternating, no line
    }[word]
    reason = example.fit_network(sizes, times)[3]
    assert reason is not None and word in reason, reason


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def vnmse(got, exact):
    return float(np.sum((got.astype(np.float64) - exact) ** 2) / np.sum(exact.astype(np.float64) ** 2))


CASE_IDS = [(world, case[0]) for world in WORLDS for case in cases(world)]


@pytest.mark.parametrize("world,name", CASE_IDS, ids=["%d-%s" % c for c in CASE_IDS])
def test_hook_equals_the_engine(world, name):
    ranks = ranks_of(world)
    make_state, exact, reference_wire = next(c[1:] for c in cases(world) if c[0] == name)
    state = make_state()
    wire = reference_wire() if reference_wire else state.wire
    # The hook is asynchronous: with the communication thread held, every future it returned was
    # still pending.
    for r in range(world):
        pending = ranks[r][name][1]
        assert len(pending) >= ITERATIONS and all(pending), "rank %d: pending %r" % (r, pending)
    records = ranks[0][name][0]
    assert len(records) >= ITERATIONS, "only %d buckets were reduced" % len(records)
    dropped = False
    for k, (iteration, index, _, _) in enumerate(records):
        inputs = np.stack([ranks[r][name][0][k][2] for r in range(world)])
        outputs = np.stack([ranks[r][name][0][k][3] for r in range(world)])
        plan = commlab.skipreduce_plan(world, inputs.shape[1], state.skip, state.policy,
                                       state.seed, iteration, index, state.bucket_name(index),
                                       state.unbiased, state.algorithm, state.protected_buckets,
                                       state.min_elements)
        dropped |= bool(plan.dropped)
        if exact:
            want = commlab.allreduce_reference(inputs, plan, wire, iteration, index)
            same = np.array_equal(outputs.view(np.uint32), want.view(np.uint32))
            bad = None if same else tuple(np.argwhere(outputs != want)[0])
            assert same, "iteration %d bucket %d rank/element %r: hook %r, engine %r" % (
                iteration, index, bad, outputs[bad], want[bad])
        else:
            # Every packet cut to 1 EDEN head bit: each hop's vNMSE is at most v = 0.5708 in
            # expectation (energy x (1 + v)); a ring chunk crosses at most 2 (N - 1) hops before
            # it is final: (1 + v)^(2 (N - 1)) - 1.
            bound = (1 + EDEN_1BIT_VNMSE) ** (2 * (world - 1)) - 1
            mean = inputs.astype(np.float64).mean(axis=0)
            got = max(vnmse(outputs[r], mean) for r in range(world))
            assert 0 < got <= bound, "vNMSE %.4f outside (0, %.4f]" % (got, bound)
    # Skipping really drops contributions: the plans name them.
    if name.startswith("skip"):
        assert dropped, "the plans drop nothing"
