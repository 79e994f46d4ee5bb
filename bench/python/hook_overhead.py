"""Per-iteration time of DDP training under PyTorch's and CommLab's communication hooks.

The model and data of examples/pytorch/train_fashion_mnist.py (a 784-256-256-10 MLP, 32 rows of
Fashion-MNIST per rank; synthetic rows of the same shape when /usr/share/datasets/fashion-mnist is
absent), trained with SGD under each arm:

    none        PyTorch's default all-reduce (no hook registered)
    powersgd    torch.distributed.algorithms.ddp_comm_hooks.powerSGD_hook (rank 1)
    fp32        commlab.torch_hooks.commlab_hook, CommLab's ring, nothing skipped
    skip1       the same hook with SkipReduce s=1 (random policy)
    codec       the same hook with the zstd-1 codec on the wire

Every rank builds one DDP model per arm in one process group (gloo, localhost, processes spawned
by torch.multiprocessing); the arms then take turns in rounds of --round iterations, so that the
load of a shared machine falls on all of them alike. An iteration is timed from a barrier to the
end of optimizer.step() on rank 0; the table gives the median over the measured iterations (the
first --warmup of each arm are left out).

    OMP_NUM_THREADS=1 python3 bench/python/hook_overhead.py --ranks 2 4
"""
import argparse
import gzip
import os
import socket
import statistics
import sys
import tempfile
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.distributed.algorithms.ddp_comm_hooks import powerSGD_hook as powersgd

import commlab.torch_hooks as ch

DATA_DIR = "/usr/share/datasets/fashion-mnist"
ARMS = ("none", "powersgd", "fp32", "skip1", "codec")


def read_idx(path):
    """An IDX file (big-endian header: magic, then one int32 per dimension)."""
    with gzip.open(path, "rb") as f:
        data = f.read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def load(rows):
    """(x, y, source): Fashion-MNIST's first training rows, or seeded random rows of its shape."""
    images = os.path.join(DATA_DIR, "train-images-idx3-ubyte.gz")
    labels = os.path.join(DATA_DIR, "train-labels-idx1-ubyte.gz")
    if os.path.exists(images) and os.path.exists(labels):
        x = read_idx(images)[:rows].reshape(-1, 784).astype(np.float32) / 255.0
        y = read_idx(labels)[:rows].astype(np.int64)
        return torch.from_numpy(x), torch.from_numpy(y), "fashion-mnist"
    gen = torch.Generator().manual_seed(0)
    return (torch.rand(rows, 784, generator=gen), torch.randint(0, 10, (rows,), generator=gen),
            "synthetic")


def mlp():
    torch.manual_seed(1)
    return torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(),
                               torch.nn.Linear(256, 256), torch.nn.ReLU(),
                               torch.nn.Linear(256, 10))


def register(ddp, arm):
    if arm == "powersgd":
        # start_powerSGD_iter: PowerSGD all-reduces plainly for its first iterations; 2 keeps
        # them inside the warm-up.
        state = powersgd.PowerSGDState(process_group=None, matrix_approximation_rank=1,
                                       start_powerSGD_iter=2)
        ddp.register_comm_hook(state, powersgd.powerSGD_hook)
    elif arm == "fp32":
        ddp.register_comm_hook(ch.CommLabState(), ch.commlab_hook)
    elif arm == "skip1":
        ddp.register_comm_hook(ch.skipreduce_state(1, "random", seed=1, min_elements=1000),
                               ch.commlab_hook)
    elif arm == "codec":
        ddp.register_comm_hook(ch.codec_state("zstd-1"), ch.commlab_hook)


def worker(rank, world, port, args, out_path):
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port, rank=rank,
                            world_size=world)
    torch.set_num_threads(1)
    x, y, source = load(args.rows)
    shard = torch.arange(rank, len(x), world)
    runs = {}
    for arm in args.arms:
        model = mlp()
        ddp = torch.nn.parallel.DistributedDataParallel(model)
        register(ddp, arm)
        optimizer = torch.optim.SGD(ddp.parameters(), lr=0.05, momentum=0.9)
        runs[arm] = (ddp, optimizer, torch.Generator().manual_seed(rank + 1), [])
    rounds = -(-(args.warmup + args.iterations) // args.round)
    for _ in range(rounds):
        for arm in args.arms:
            ddp, optimizer, gen, times = runs[arm]
            for _ in range(args.round):
                rows = shard[torch.randint(0, len(shard), (args.batch,), generator=gen)]
                dist.barrier()
                start = time.perf_counter()
                optimizer.zero_grad()
                torch.nn.functional.cross_entropy(ddp(x[rows]), y[rows]).backward()
                optimizer.step()
                times.append(time.perf_counter() - start)
    if rank == 0:
        with open(out_path, "w") as f:
            f.write("source %s\n" % source)
            for arm in args.arms:
                measured = runs[arm][3][args.warmup:]
                f.write("%s %d %.6f %.6f %.6f\n" % (
                    arm, len(measured), statistics.median(measured),
                    np.percentile(measured, 25), np.percentile(measured, 75)))
    dist.destroy_process_group()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(world, args):
    """{arm: (iterations, median, p25, p75)} in seconds, and the data source."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "result.txt")
        mp.spawn(worker, args=(world, free_port(), args, out), nprocs=world)
        with open(out) as f:
            lines = f.read().split("\n")
    source = lines[0].split()[1]
    result = {}
    for line in lines[1:]:
        if line:
            arm, n, med, p25, p75 = line.split()
            result[arm] = (int(n), float(med), float(p25), float(p75))
    return result, source


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ranks", type=int, nargs="+", default=[2, 4])
    p.add_argument("--arms", nargs="+", default=list(ARMS), choices=ARMS)
    p.add_argument("--iterations", type=int, default=60, help="measured iterations per arm")
    p.add_argument("--warmup", type=int, default=10, help="iterations per arm left out")
    p.add_argument("--round", type=int, default=5, help="iterations of an arm before the next")
    p.add_argument("--batch", type=int, default=32, help="rows per rank per iteration")
    p.add_argument("--rows", type=int, default=60000, help="training rows read")
    args = p.parse_args()
    if args.iterations < 1 or args.warmup < 0 or args.round < 1 or args.batch < 1:
        sys.exit("hook_overhead: --iterations, --round and --batch must be >= 1, --warmup >= 0")
    if any(r < 2 for r in args.ranks):
        sys.exit("hook_overhead: --ranks must be >= 2 (a DDP hook needs peers)")
    print("| ranks | arm | iterations | median ms | p25-p75 ms | vs none |")
    print("|---|---|---|---|---|---|")
    for world in args.ranks:
        result, source = run(world, args)
        base = result["none"][1] if "none" in result else None
        for arm in args.arms:
            n, med, p25, p75 = result[arm]
            ratio = "%.2fx" % (med / base) if base else "-"
            print("| %d | %s | %d | %.2f | %.2f-%.2f | %s |" % (world, arm, n, med * 1e3,
                                                              p25 * 1e3, p75 * 1e3, ratio))
        if "fp32" in result and base:
            print("%d ranks (%s): CommLab fp32 / PyTorch default = %.2f" % (
                world, source, result["fp32"][1] / base), file=sys.stderr)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
