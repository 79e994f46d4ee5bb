"""Data-parallel training of a 784-256-256-10 MLP on Fashion-MNIST with a CommLab DDP hook, and
CommLab's prediction of the iteration time next to the measured one (docs/python.md).

    python3 -m torch.distributed.run --nproc_per_node 4 examples/pytorch/train_fashion_mnist.py \
        --hook skipreduce --skip 1 --policy random

Hooks: none (PyTorch's own all-reduce), fp32 (CommLab's ring, nothing skipped), skipreduce,
codec, trim. The prediction = measured compute (the same iterations under no_sync, so no
communication) + commlab.time_collective of the gradient bytes on a flat alpha-beta network whose
alpha and bandwidth this script measures between ranks 0 and 1 with gloo (a 2-size ping-pong).
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


def ping_pong(rank, size_bytes, reps=20):
    """One-way time of a size_bytes message between ranks 0 and 1 (half the round trip)."""
    t = torch.zeros(max(1, size_bytes // 4))
    dist.barrier()
    start = time.perf_counter()
    for _ in range(reps):
        if rank == 0:
            dist.send(t, 1)
            dist.recv(t, 1)
        elif rank == 1:
            dist.recv(t, 0)
            dist.send(t, 0)
    return (time.perf_counter() - start) / reps / 2


def measure_network(rank):
    """alpha (s) and bandwidth (GB/s) of a gloo link from two ping-pong sizes, rank 0's view
    broadcast to every rank."""
    small, large = 4, 1 << 20
    t_small, t_large = ping_pong(rank, small), ping_pong(rank, large)
    fit = torch.tensor([t_small, (large - small) / max(t_large - t_small, 1e-9) / 1e9],
                       dtype=torch.float64)
    dist.broadcast(fit, 0)
    return float(fit[0]), float(fit[1])


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

    alpha_s, bw_gbps = measure_network(rank)
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
    element_bytes = wire_element_bytes(args, grads)
    comm = commlab.time_collective("ring", "allreduce", world, grads.size * 4,
                                   bw_gbps=bw_gbps, alpha_us=alpha_s * 1e6,
                                   skip=args.skip if args.hook == "skipreduce" else 0,
                                   policy=args.policy, seed=args.seed,
                                   element_bytes=element_bytes, slice_bytes=0)
    predicted = statistics.median(compute) + comm["time_s"]
    measured = statistics.median(times[args.warmup:])
    if rank == 0:
        print("hook %-10s ranks %d  iterations %d  loss %.3f -> %.3f  test accuracy %.3f"
              % (args.hook, world, args.iterations, statistics.mean(losses[:10]),
                 statistics.mean(losses[-10:]), accuracy))
        print("  network (gloo ping-pong): alpha %.1f us, %.2f GB/s; wire %.2f bytes/value"
              % (alpha_s * 1e6, bw_gbps, element_bytes))
        print("  iteration: measured %.2f ms | CommLab predicted %.2f ms (compute %.2f + ring "
              "all-reduce %.2f)" % (measured * 1e3, predicted * 1e3,
                                    statistics.median(compute) * 1e3, comm["time_s"] * 1e3))
        if state is not None:
            print("  bytes sent by rank 0 per iteration: %.0f" % (state.bytes_sent /
                                                                  args.iterations))
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
    p.add_argument("--batch", type=int, default=32, help="rows per rank per iteration")
    p.add_argument("--train-rows", type=int, default=60000)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--seed", type=int, default=1)
    train(p.parse_args())


if __name__ == "__main__":
    main()
