"""Data-parallel training of a 784-256-256-10 MLP on Fashion-MNIST with a CommLab DDP hook, and
CommLab's prediction of the iteration time next to the measured one (docs/python.md).

    python3 -m torch.distributed.run --redirects 2 --tee 2 --nproc_per_node 4 \
        examples/pytorch/train_fashion_mnist.py --hook skipreduce --skip 1 --policy random

(--redirects 2 --tee 2: torch 1.13's launcher fails on Python 3.11 without them.)

Hooks: none (PyTorch's own all-reduce), fp32 (CommLab's ring, nothing skipped), skipreduce,
codec, trim. The prediction = measured compute (the same iterations under no_sync, so no
communication) + commlab.time_collective of the gradient bytes on a flat alpha-beta network whose
alpha and bandwidth this script fits to a gloo ping-pong between ranks 0 and 1 (8 sizes from 1 KiB
to 4 MiB, the median of several round trips each). A fit that is not credible (bandwidth not
positive or out of range, negative alpha, R^2 below 0.9) is refused: the script then says so and
predicts nothing.
"""
import argparse
import gzip
import os
import statistics
import time

import numpy as np
import torch
import torch.distributed as dist

import commlab
import commlab.torch_hooks as ch

DATA_DIR = "/usr/share/datasets/fashion-mnist"  # Debian's dataset-fashion-mnist, as core/train


def read_idx(path):
    """An IDX file (big-endian header: magic, then one int32 per dimension)."""
    with gzip.open(path, "rb") as f:
        data = f.read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def load(split, limit):
    prefix = "train" if split == "train" else "t10k"
    images = read_idx(os.path.join(DATA_DIR, prefix + "-images-idx3-ubyte.gz"))[:limit]
    labels = read_idx(os.path.join(DATA_DIR, prefix + "-labels-idx1-ubyte.gz"))[:limit]
    x = torch.from_numpy(images.reshape(len(images), -1).astype(np.float32) / 255.0)
    return x, torch.from_numpy(labels.astype(np.int64))


def state_for(args, world):
    if args.hook == "fp32":
        return ch.CommLabState()
    if args.hook == "skipreduce":
        return ch.skipreduce_state(args.skip, args.policy, seed=args.seed, unbiased=args.unbiased,
                                   min_elements=1000)
    if args.hook == "codec":
        return ch.codec_state(args.codec, args.codec_dtype)
    if args.hook == "trim":
        return ch.trim_state(rate=args.trim_rate, trim_seed=args.seed, head_bits=args.head_bits)
    return None


PING_PONG_SIZES = [1 << k for k in (10, 12, 14, 16, 18, 20, 21, 22)]  # 1 KiB .. 4 MiB
MIN_R2 = 0.9  # the line must explain at least this share of the times' variance
BANDWIDTH_RANGE_GBPS = (0.01, 200.0)  # outside: not a link a gloo process can have
ALPHA_RANGE_S = (0.0, 0.01)


def ping_pong(rank, size_bytes, reps):
    """Median one-way time (half the round trip) of a size_bytes message between ranks 0 and 1,
    after one round trip of warm-up; other ranks take no part."""
    t = torch.zeros(max(1, size_bytes // 4))
    times = []
    for rep in range(reps + 1):
        start = time.perf_counter()
        if rank == 0:
            dist.send(t, 1)
            dist.recv(t, 1)
        elif rank == 1:
            dist.recv(t, 0)
            dist.send(t, 0)
        if rep > 0:
            times.append((time.perf_counter() - start) / 2)
    return statistics.median(times) if rank <= 1 else 0.0


def fit_network(sizes, times):
    """Least squares of t = alpha + bytes / bandwidth, each point weighted by 1 / t (relative
    errors, so that the small sizes fix alpha and the large ones the bandwidth). Returns
    (alpha_s, bandwidth_gbps, r2, reason): reason is None when the fit is credible, else why not."""
    x, t = np.asarray(sizes, dtype=np.float64), np.asarray(times, dtype=np.float64)
    if np.any(t <= 0):
        return 0.0, 0.0, 0.0, "a ping-pong time is not positive"
    w = 1.0 / t
    design = np.stack([w, x * w], axis=1)
    (alpha, slope), *_ = np.linalg.lstsq(design, t * w, rcond=None)
    # R^2 of the line on the times themselves: 1 - residual / total sum of squares.
    r2 = 1.0 - float(np.sum((t - alpha - slope * x) ** 2) / np.sum((t - t.mean()) ** 2))
    bandwidth = 1.0 / slope / 1e9 if slope > 0 else float("inf")
    if slope <= 0:
        reason = "time does not grow with size (slope %.3g s/B)" % slope
    elif not BANDWIDTH_RANGE_GBPS[0] <= bandwidth <= BANDWIDTH_RANGE_GBPS[1]:
        reason = "bandwidth %.3g GB/s outside [%g, %g]" % ((bandwidth,) + BANDWIDTH_RANGE_GBPS)
    elif not ALPHA_RANGE_S[0] <= alpha <= ALPHA_RANGE_S[1]:
        reason = "alpha %.1f us outside [0, %g] us" % (alpha * 1e6, ALPHA_RANGE_S[1] * 1e6)
    elif r2 < MIN_R2:
        reason = "R^2 %.3f below %.2f" % (r2, MIN_R2)
    else:
        reason = None
    return float(alpha), bandwidth, r2, reason


def measure_network(rank, reps):
    """Rank 0's fit of a gloo link to ranks 1 (fit_network over PING_PONG_SIZES), broadcast to
    every rank: (alpha_s, bandwidth_gbps, r2, reason, times)."""
    dist.barrier()
    times = [ping_pong(rank, size, reps) for size in PING_PONG_SIZES]
    alpha, bandwidth, r2, reason = fit_network(PING_PONG_SIZES, times) if rank == 0 else \
        (0.0, 0.0, 0.0, None)
    shared = torch.tensor([alpha, bandwidth, r2, float(reason is not None)] + times,
                          dtype=torch.float64)
    dist.broadcast(shared, 0)
    refused = bool(shared[3])
    return (float(shared[0]), float(shared[1]), float(shared[2]),
            (reason or "refused on rank 0") if refused else None, shared[4:].tolist())


def wire_element_bytes(args, grads):
    """What one FP32 gradient value weighs on the wire under the hook, measured with the engine on
    the first gradients: the codec's ratio; trimming's kept bytes at the trim rate."""
    if args.hook == "codec":
        values = grads if args.codec_dtype == "fp32" else \
            torch.from_numpy(grads).to(torch.bfloat16).view(torch.int16).numpy()
        return commlab.Codec(args.codec).ratio(values) * (4 if args.codec_dtype == "fp32" else 2)
    if args.hook == "trim":
        config = commlab.trim.TrimConfig("eden", args.head_bits, 4096)
        packets = commlab.trim.encode_packets(grads, config)
        full = sum(len(p) for p in packets)
        kept = sum(commlab.trim.trim_size(p, args.head_bits) for p in packets)
        return full / grads.size * ((1 - args.trim_rate) + args.trim_rate * kept / full)
    return 4.0


def report(args, world, state, network, losses, accuracy, times, compute, element_bytes, count):
    """Rank 0's summary: training, the fitted network, and the measured against the predicted
    iteration (none when the network fit was refused)."""
    alpha_s, bw_gbps, r2, refused, pings = network
    measured = statistics.median(times[args.warmup:])
    compute_s = statistics.median(compute)
    print("hook %-10s ranks %d  iterations %d  loss %.3f -> %.3f  test accuracy %.3f"
          % (args.hook, world, args.iterations, statistics.mean(losses[:10]),
             statistics.mean(losses[-10:]), accuracy))
    print("  ping-pong one-way us: %s" % ", ".join(
        "%s %.1f" % (size_name(n), t * 1e6) for n, t in zip(PING_PONG_SIZES, pings)))
    if refused:
        print("  network fit refused (%s): no CommLab prediction" % refused)
        print("  iteration: measured %.2f ms (compute %.2f)" % (measured * 1e3, compute_s * 1e3))
    else:
        comm = commlab.time_collective(ranks=world, bytes=count * 4, bw_gbps=bw_gbps,
                                       alpha_us=alpha_s * 1e6,
                                       skip=args.skip if args.hook == "skipreduce" else 0,
                                       policy=args.policy, seed=args.seed,
                                       element_bytes=element_bytes, slice_bytes=0)
        print("  network (gloo ping-pong fit): alpha %.1f us, %.2f GB/s, R^2 %.3f; wire %.2f "
              "bytes/value" % (alpha_s * 1e6, bw_gbps, r2, element_bytes))
        print("  iteration: measured %.2f ms | CommLab predicted %.2f ms (compute %.2f + ring "
              "all-reduce %.2f)" % (measured * 1e3, (compute_s + comm.time_s) * 1e3,
                                    compute_s * 1e3, comm.time_s * 1e3))
    if state is not None:
        print("  bytes sent by rank 0 per iteration: %.0f" % (state.bytes_sent / args.iterations))


def size_name(n):
    return "%d MiB" % (n >> 20) if n >= 1 << 20 else "%d KiB" % (n >> 10)


def train(args):
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    model = torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(),
                                torch.nn.Linear(256, 256), torch.nn.ReLU(),
                                torch.nn.Linear(256, 10))
    ddp = torch.nn.parallel.DistributedDataParallel(model)
    state = state_for(args, world)
    if state is not None:
        ddp.register_comm_hook(state, ch.commlab_hook)
    lr = args.lr * (commlab.lr_compensation(world, args.skip) if args.lr_compensation else 1.0)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=lr, momentum=0.9)
    x, y = load("train", args.train_rows)
    shard = torch.arange(rank, len(x), world)  # every rank its own rows
    gen = torch.Generator().manual_seed(args.seed + rank)

    def step(sync=True):
        rows = shard[torch.randint(0, len(shard), (args.batch,), generator=gen)]
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(ddp(x[rows]), y[rows])
        if sync:
            loss.backward()
        else:
            with ddp.no_sync():
                loss.backward()
        return float(loss)

    network = measure_network(rank, args.pingpong_reps)
    times, losses = [], []
    for it in range(args.iterations):
        dist.barrier()
        start = time.perf_counter()
        losses.append(step())
        optimizer.step()
        times.append(time.perf_counter() - start)
    compute = []  # forward + backward, no communication, no update: after training (warm)
    for _ in range(args.compute_probes):
        dist.barrier()
        start = time.perf_counter()
        step(sync=False)
        compute.append(time.perf_counter() - start)
    grads = np.concatenate([p.grad.detach().numpy().ravel() for p in model.parameters()])
    x_test, y_test = load("test", 2000)
    with torch.no_grad():
        accuracy = float((model(x_test).argmax(1) == y_test).float().mean())
    if rank == 0:
        report(args, world, state, network, losses, accuracy, times, compute,
               wire_element_bytes(args, grads), grads.size)
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hook", default="skipreduce",
                   choices=["none", "fp32", "skipreduce", "codec", "trim"])
    p.add_argument("--skip", type=int, default=1)
    p.add_argument("--policy", default="random", choices=["naive", "random", "selective"])
    p.add_argument("--unbiased", action="store_true")
    p.add_argument("--lr-compensation", action="store_true",
                   help="learning rate x N / (N - s), compensated SkipReduce")
    p.add_argument("--codec", default="zstd-1")
    p.add_argument("--codec-dtype", default="fp32", choices=["fp32", "bf16"])
    p.add_argument("--trim-rate", type=float, default=0.1)
    p.add_argument("--head-bits", type=int, default=1)
    p.add_argument("--iterations", type=int, default=200)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--compute-probes", type=int, default=20)
    p.add_argument("--pingpong-reps", type=int, default=10,
                   help="timed round trips per ping-pong size (the median is fitted)")
    p.add_argument("--batch", type=int, default=32, help="rows per rank per iteration")
    p.add_argument("--train-rows", type=int, default=60000)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    if args.pingpong_reps < 1 or args.iterations <= args.warmup or args.compute_probes < 1:
        p.error("--pingpong-reps and --compute-probes must be >= 1 and --iterations above "
                "--warmup")
    train(args)


if __name__ == "__main__":
    main()
