"""DDP communication hooks that run CommLab's collective plans over torch.distributed.

Each hook averages a gradient bucket by running the steps of a CommLab plan (ring by default):
for every step, this rank's sends are encoded by the engine (commlab.RankStepper), moved with
point-to-point isend/irecv (gloo on CPUs, across processes and machines), and decoded and reduced
by the engine in plan order. The averaged bucket is therefore bit for bit what CommLab's simulated
collective gives for the same per-rank gradients, seed and iteration (commlab.allreduce_reference).

    import commlab.torch_hooks as ch
    ddp.register_comm_hook(ch.skipreduce_state(skip=1, policy="random", seed=7), ch.commlab_hook)
    ddp.register_comm_hook(ch.codec_state("zstd-3"), ch.commlab_hook)
    ddp.register_comm_hook(ch.trim_state(rate=0.1, trim_seed=3), ch.commlab_hook)

The hooks are for torch 1.13's DistributedDataParallel.register_comm_hook(state, hook). The hook
is asynchronous, as PyTorch's own hooks are: it builds the bucket's plan, queues the plan's steps
on the process's communication thread and returns a torch.futures.Future that completes when the
averaged bucket is ready, so DDP goes on with the backward pass meanwhile. The thread runs buckets
one at a time in the order the hooks queued them; DDP calls the hooks in bucket order on every
rank, so every rank posts the same sends and receives in the same order (what gloo needs).
"""
import atexit
import os
import queue
import threading

import numpy as np
import torch
import torch.distributed as dist

from . import RankStepper, Wire, skipreduce_plan


class CommLabState:
    """What a hook needs besides the bucket: the plan's SkipReduce settings, the wire, the
    process group, and the iteration counter (advanced after each iteration's last bucket)."""

    def __init__(self, process_group=None, wire=None, skip=0, policy="naive", seed=0,
                 unbiased=False, algorithm="ring", trim_mask=None, protected_buckets=(),
                 min_elements=100000, bucket_name=None):
        self.process_group = process_group
        self.wire = wire
        self.skip = skip
        self.policy = policy
        self.seed = seed
        self.unbiased = unbiased
        self.algorithm = algorithm
        # trim_mask(key) -> uint8 array, one entry per packet (non-zero: trimmed to the head);
        # called by both ends of a transfer with the same key (see transfer_key), on the
        # communication thread.
        self.trim_mask = trim_mask
        self.protected_buckets = list(protected_buckets)
        self.min_elements = min_elements
        self.bucket_name = bucket_name or (lambda index: "bucket%d" % index)
        self.iteration = 0
        self.bytes_sent = 0  # by this rank, on the wire (payloads, and sizes where they travel)
        self.last_plan = None
        # For tests: a threading.Event the communication thread waits for before each bucket.
        self.gate = None


def skipreduce_state(skip, policy="naive", seed=0, unbiased=False, **kwargs):
    """SkipReduce: skip `skip` of the ring reduce-scatter's N-1 steps; policy naive, random
    (the rotation the engine draws for (seed, bucket, iteration)) or selective. unbiased rescales
    each chunk by N / contributors; for the compensated variant multiply the learning rate by
    commlab.lr_compensation(N, skip) instead."""
    return CommLabState(skip=skip, policy=policy, seed=seed, unbiased=unbiased, **kwargs)


def codec_state(codec, dtype="fp32", **kwargs):
    """A codec on the wire: every chunk is encoded before it is sent and decoded after it is
    received (values cast to dtype first; lossless codecs on fp32 change nothing)."""
    return CommLabState(wire=Wire.codec(codec, dtype), **kwargs)


def trim_state(encoding="eden", head_bits=1, payload_bytes=4096, rate=0.0, trim_seed=0,
               mask=None, seed=0, wire_dtype="fp32", **kwargs):
    """Trimmable packets: with rate > 0 each packet is cut to its head bits with that probability
    (the engine's Bernoulli draws, keyed by trim_seed); or mask(key) says which packets are cut.
    Only the kept bytes travel."""
    if rate > 0 and mask is not None:
        raise ValueError("trim_state: give rate or mask, not both")
    wire = Wire.trim(encoding, head_bits, payload_bytes, wire_dtype, seed, True, rate, trim_seed)
    return CommLabState(wire=wire, trim_mask=mask, **kwargs)


def transfer_key(iteration, bucket, step, transfer, packets):
    """The key a trim mask is asked for: both ends of a transfer build the same one. run_plan
    adds key["bernoulli"](rate, seed): the engine's Bernoulli draws for this transfer as a mask."""
    return {"iteration": iteration, "bucket": bucket, "step": step, "src": transfer.src,
            "dst": transfer.dst, "offset": transfer.offset, "count": transfer.count,
            "packets": packets}


def _global_rank(group, rank):
    get = getattr(dist, "get_global_rank", None) or dist.distributed_c10d._get_global_rank
    return get(group, rank)


def _exchange(sends, recvs, group):
    """Posts every receive, then every send, and waits: [(peer, tensor)] each; tags tell apart
    several transfers between the same two ranks in one step."""
    requests = [dist.irecv(t, src=peer, group=group, tag=tag) for peer, t, tag in recvs]
    requests += [dist.isend(t, dst=peer, group=group, tag=tag) for peer, t, tag in sends]
    for r in requests:
        r.wait()


def run_plan(plan, rank, buffer, wire=None, iteration=0, bucket=0, group=None, trim_mask=None,
             state=None):
    """Runs `plan` for this rank on `buffer` (float32 NumPy array, updated in place) with
    torch.distributed point-to-point. A wire that may change a chunk's size (codec, trimming)
    exchanges the sizes first, then the bytes; the plain wire sends a transfer's count x 4 bytes,
    which both ends know, so only the bytes travel."""
    stepper = RankStepper(plan, rank, wire, iteration, bucket)
    to_global = (lambda r: _global_rank(group, r)) if group is not None else (lambda r: r)
    sizes_known = wire is None and trim_mask is None
    sent = 0
    for s in range(stepper.steps):
        sends, recvs = stepper.sends(s), stepper.recvs(s)
        masks = {}
        if trim_mask is not None:
            for i in list(sends) + list(recvs):
                t = stepper.transfer(s, i)
                key = transfer_key(iteration, bucket, s, t, stepper.packets(s, i))
                key["bernoulli"] = (lambda rate, seed, s=s, i=i:
                                    stepper.bernoulli_mask(s, i, rate, seed))
                masks[i] = np.ascontiguousarray(trim_mask(key), dtype=np.uint8)
        wires = [stepper.encode(s, i, buffer, masks.get(i)) for i in sends]
        if sizes_known:
            sizes = [4 * stepper.transfer(s, i).count for i in recvs]
            for i, w in zip(sends, wires):
                if len(w) != 4 * stepper.transfer(s, i).count:
                    raise RuntimeError("run_plan: step %d transfer %d encodes %d bytes for %d "
                                       "values on the plain wire" % (s, i, len(w),
                                                                     stepper.transfer(s, i).count))
        else:
            sizes_out = [torch.tensor([len(w)], dtype=torch.int64) for w in wires]
            sizes_in = [torch.zeros(1, dtype=torch.int64) for _ in recvs]
            _exchange([(to_global(stepper.transfer(s, i).dst), t, i)
                       for i, t in zip(sends, sizes_out)],
                      [(to_global(stepper.transfer(s, i).src), t, i)
                       for i, t in zip(recvs, sizes_in)], group)
            sizes = [int(n.item()) for n in sizes_in]
            sent += 8 * len(wires)
        payload_in = [torch.empty(n, dtype=torch.uint8) for n in sizes]
        _exchange([(to_global(stepper.transfer(s, i).dst), torch.from_numpy(w), i)
                   for i, w in zip(sends, wires) if len(w)],
                  [(to_global(stepper.transfer(s, i).src), t, i)
                   for i, t in zip(recvs, payload_in) if t.numel()], group)
        sent += sum(len(w) for w in wires)
        for i, t in zip(recvs, payload_in):  # plan order, as the simulated executor reduces
            stepper.receive(s, i, buffer, t.numpy(), masks.get(i))
    stepper.finish(buffer)
    if state is not None:
        state.bytes_sent += sent
    return buffer


class _CommThread:
    """A thread running queued jobs one at a time, first in first out. It is stopped and joined at
    interpreter exit (atexit, after the jobs already queued): a thread still alive while the
    process tears down torch's and gloo's C++ objects ends the process with SIGABRT ("terminate
    called without an active exception")."""

    def __init__(self):
        self.pid = os.getpid()
        self.jobs = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._run, name="commlab-hook", daemon=True)
        self.thread.start()
        atexit.register(self.stop)

    def _run(self):
        while True:
            job = self.jobs.get()
            if job is None:
                return
            job()

    def stop(self):
        if self.pid == os.getpid() and self.thread.is_alive():
            self.jobs.put(None)
            self.thread.join()


_comm_thread = None
_comm_thread_lock = threading.Lock()


def _submit(job):
    """Queues job on this process's communication thread (started on first use, and again in a
    forked child, which inherits the object but not the thread)."""
    global _comm_thread
    with _comm_thread_lock:
        if _comm_thread is None or _comm_thread.pid != os.getpid():
            _comm_thread = _CommThread()
        _comm_thread.jobs.put(job)


def commlab_hook(state, bucket):
    """The DDP communication hook: the bucket's gradients summed by the state's CommLab plan,
    times 1/N (float32). Returns a future that the communication thread completes (or fails with
    the plan's exception)."""
    group = state.process_group
    world = dist.get_world_size(group)
    rank = dist.get_rank(group)
    grads = bucket.buffer()
    if grads.dtype != torch.float32:
        raise TypeError("commlab hooks reduce float32 gradients, got %s" % grads.dtype)
    values = grads.detach().cpu().numpy().astype(np.float32, copy=True)
    index = bucket.index()
    plan = skipreduce_plan(world, values.size, state.skip, state.policy, state.seed,
                           state.iteration, index, state.bucket_name(index), state.unbiased,
                           state.algorithm, state.protected_buckets, state.min_elements)
    state.last_plan = plan
    iteration = state.iteration
    if bucket.is_last():
        state.iteration += 1
    future = torch.futures.Future()
    device = grads.device

    def reduce_bucket():
        try:
            if state.gate is not None:
                state.gate.wait()
            run_plan(plan, rank, values, state.wire, iteration, index, group, state.trim_mask,
                     state)
            np.multiply(values, np.float32(1.0 / world), out=values)
            result = torch.from_numpy(values).to(device)
        except BaseException as e:  # noqa: B036 (handed to whoever waits on the future)
            future.set_exception(e)
            return
        future.set_result(result)

    _submit(reduce_bucket)
    return future


# The same hook under the names of what it does (the state decides).
skipreduce_hook = codec_hook = trim_hook = commlab_hook
