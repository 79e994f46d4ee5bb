"""The module commlab without torch: codecs, plans, the executor, the per-rank stepper (run for
every rank in this process, bytes passed by hand), trimmable packets and the simulator entries.
Run by pytest (ctest: python.bridge_test); skipped when NumPy or the module is missing."""
import sys

import pytest

np = pytest.importorskip("numpy")
commlab = pytest.importorskip("commlab")


def expect(condition, what):
    assert condition, what


def gradients(ranks, count, seed=0):
    return np.random.default_rng(seed).standard_normal((ranks, count)).astype(np.float32)


def test_codecs():
    x = gradients(1, 4096)[0]
    x[::2] = 0  # compressible: half the values are zero
    for name in ("raw", "lz4", "zstd-3", "commlab"):
        codec = commlab.Codec(name)
        frame = codec.encode(x)
        expect(codec.lossless and codec.round_trips(x), "%s round trips" % name)
        expect(np.array_equal(codec.decode(frame).view(np.uint32), x.view(np.uint32)),
               "%s decode gives the input bits" % name)
    expect(commlab.Codec("zstd-3").ratio(x) < 0.75, "zstd compresses half-zero data")
    try:
        commlab.Codec("zstd-3").decode(commlab.Codec("zstd-3").encode(x)[:10])
        expect(False, "a truncated frame is refused")
    except ValueError as e:
        expect("frame" in str(e) or "decode" in str(e), "the refusal says what: %s" % e)


def test_plans_and_executor():
    n, count = 4, 10
    plan = commlab.build_plan("ring", "allreduce", n, count)
    # Ring all-reduce: N - 1 reduce-scatter steps then N - 1 all-gather steps.
    expect(plan.total_steps() == 2 * (n - 1), "ring has 2(N-1) steps")
    x = gradients(n, count)
    out = commlab.allreduce_reference(x, plan)
    expect(all(np.array_equal(out[0], out[r]) for r in range(n)), "every rank ends equal")
    expect(np.allclose(out[0], x.mean(axis=0), atol=1e-6), "ring average = mean")
    skipped = commlab.build_plan("ring", "allreduce", n, count, skip=1, rotation=0)
    # Skipping s steps drops s contributions of each of the N chunks.
    expect(len(skipped.dropped) == n * 1, "N*s dropped contributions")
    expect(skipped.total_steps() == 2 * (n - 1) - 1, "one step fewer")
    unbiased = commlab.build_plan("ring", "allreduce", n, count, skip=1, unbiased=True)
    expect(all(abs(s - n / (n - 1)) < 1e-12 for s in unbiased.chunk_scale), "scale N/(N-s)")
    expect(abs(commlab.lr_compensation(8, 2) - 8 / 6) < 1e-12, "lr compensation N/(N-s)")
    same = commlab.decide_skip(1, "random", 7, n, 0, "b", 10**6, 3)
    expect(same == commlab.decide_skip(1, "random", 7, n, 0, "b", 10**6, 3), "decisions repeat")
    rotations = {commlab.decide_skip(1, "random", 7, n, 0, "b", 10**6, it)[1] for it in range(20)}
    expect(len(rotations) > 1, "random policy rotates across iterations")


def run_steppers(plan, inputs, wire=None):
    """Every rank's RankStepper in this process; the bytes go from sender to receiver by hand."""
    buffers = [inputs[r].copy() for r in range(plan.ranks)]
    steppers = [commlab.RankStepper(plan, r, wire) for r in range(plan.ranks)]
    for s in range(steppers[0].steps):
        sent = {}
        for r, st in enumerate(steppers):
            for i in st.sends(s):
                sent[i] = st.encode(s, i, buffers[r])
        for r, st in enumerate(steppers):
            for i in st.recvs(s):
                st.receive(s, i, buffers[r], sent[i])
    for r, st in enumerate(steppers):
        st.finish(buffers[r])
    return np.stack(buffers)


def test_rank_stepper_matches_executor():
    x = gradients(4, 1000, seed=3)
    for algorithm in ("ring", "tree", "hd", "direct"):
        for wire in (None, commlab.Wire.bf16(), commlab.Wire.codec("zstd-1"),
                     commlab.Wire.trim(payload_bytes=512, rate=0.4, trim_seed=2)):
            skip = 1 if commlab.skip_limit(algorithm, 4) > 0 else 0
            plan = commlab.build_plan(algorithm, "allreduce", 4, 1000, skip=skip, unbiased=True)
            want = x.copy()
            commlab.execute(plan, want, wire)
            got = run_steppers(plan, x, wire)
            expect(np.array_equal(got.view(np.uint32), want.view(np.uint32)),
                   "stepper = executor: %s on %s" % (algorithm, wire.name if wire else "fp32"))


def test_trim_packets():
    cfg = commlab.trim.TrimConfig("eden", head_bits=2, payload_bytes=1024, seed=4)
    x = gradients(1, 3000, seed=5)[0]
    packets = commlab.trim.encode_packets(x, cfg)
    expect(len(packets) == -(-3000 // cfg.coords_per_packet), "ceil(count / per packet) packets")
    whole, stats = commlab.trim.decode_packets(packets, cfg, 3000)
    expect(np.array_equal(whole, x) and stats["packets_trimmed"] == 0, "untrimmed is exact")
    cut = [commlab.trim.trim_packet(p, commlab.trim.trim_size(p, 2)) for p in packets]
    approx, stats = commlab.trim.decode_packets(cut, cfg, 3000)
    err = np.sum((approx.astype(np.float64) - x) ** 2) / np.sum(x.astype(np.float64) ** 2)
    # docs/formats.md: unbiased EDEN 2-bit vNMSE = D_2 / (1 - D_2) = 0.1333 for large d; a 1 KiB
    # packet rotates ~200 coordinates padded to 256, (count / d) of it; sampling noise aside.
    expect(stats["packets_trimmed"] == len(packets) and 0.02 < err < 0.2,
           "2-bit EDEN heads: vNMSE %.4f near 0.13" % err)
    try:
        commlab.trim.decode_packets([packets[0][:5]], cfg, 3000)
        expect(False, "a cut header is refused")
    except ValueError:
        pass


def test_simulator():
    n, size, bw, alpha = 8, 1 << 20, 25.0, 5.0
    t = commlab.time_collective(algorithm=commlab.Algorithm.RING, op=commlab.Op.ALLREDUCE,
                                ranks=n, bytes=size, bw_gbps=bw, alpha_us=alpha, slice_bytes=0)
    # Bulk-synchronous ring on the flat alpha-beta network: 2(N-1) steps of alpha + (S/N)/bw.
    closed = 2 * (n - 1) * (alpha * 1e-6 + size / n / (bw * 1e9))
    expect(abs(t.time_s - closed) <= 1e-9 * closed, "ring time %.6g = %.6g" % (t.time_s, closed))
    skipped = commlab.time_collective(algorithm="ring", op="allreduce", ranks=n, bytes=size,
                                      bw_gbps=bw, alpha_us=alpha, slice_bytes=0, skip=3)
    # Three reduce-scatter steps fewer.
    expect(abs(skipped["time_s"] - (closed - 3 * closed / (2 * (n - 1)))) <= 1e-9 * closed,
           "SkipReduce s=3 removes three steps")
    base = commlab.time_workload("gpt-7b", "netzip-512:gbps=400", engine="sum", tp=4)
    half = commlab.time_workload("gpt-7b", "netzip-512:gbps=400", engine="sum", tp=4, ratio=0.5)
    expect(base["iteration_s"] > base["compute_s"] > 0, "iteration = compute + communication")
    expect(half["dp_s"] < base["dp_s"], "a 0.5 wire ratio shortens DP communication")


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-v", "-p", "no:cacheprovider"]))
