#!/usr/bin/env python3
"""PyTorch reference figures for podplan-calibrate's acceptance check.

Measures, with CUDA-event timing like podplan-calibrate:
  - torch.distributed.all_reduce (NCCL backend, one process per GPU, float32
    sum) busbw at the given sizes: per-iteration events after a barrier, median
    over the iterations, and also the mean of a batch of back-to-back calls;
  - torch.matmul bf16 N x N x N on random data: median over timed calls.
busbw uses nccl-tests' formula: algbw = bytes / time, busbw = algbw x 2(n-1)/n.

  python3 calibrate/torch_ref.py --sizes 1G,4G --gemm 8192 --out ref.json
Prints one JSON object (also written to --out)."""
import argparse
import json
import os
import statistics
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def parse_size(s):
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(float(s[:-1]) * mult[s[-1]]) if s[-1] in mult else int(s)


def allreduce_worker(rank, world, sizes, iters, warmup, port, q):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world,
                            device_id=torch.device("cuda", rank))
    out = []
    for size in sizes:
        x = torch.ones(size // 4, dtype=torch.float32, device="cuda")
        for _ in range(warmup):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        per = []
        for _ in range(iters):
            dist.barrier()
            torch.cuda.synchronize()
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            dist.all_reduce(x)
            e.record()
            e.synchronize()
            per.append(s.elapsed_time(e) / 1e3)
        dist.barrier()
        torch.cuda.synchronize()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(iters):
            dist.all_reduce(x)
        e.record()
        e.synchronize()
        batch = s.elapsed_time(e) / 1e3 / iters
        # the slowest rank's time, as nccl-tests and podplan-calibrate take it
        t = torch.tensor(per + [batch], dtype=torch.float64, device="cuda")
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        t = t.tolist()
        per, batch = t[:-1], t[-1]
        med = statistics.median(per)
        f = 2.0 * (world - 1) / world
        out.append({"bytes": size, "median_us": med * 1e6, "min_us": min(per) * 1e6,
                    "max_us": max(per) * 1e6, "batch_mean_us": batch * 1e6,
                    "busbw_GBps": size / med / 1e9 * f, "busbw_batch_GBps": size / batch / 1e9 * f})
        del x
        torch.cuda.empty_cache()
    if rank == 0:
        q.put(out)
    dist.destroy_process_group()


def matmul(n, iters, warmup):
    torch.cuda.set_device(0)
    g = torch.Generator(device="cuda").manual_seed(1)
    a = torch.randn(n, n, dtype=torch.bfloat16, device="cuda", generator=g)
    b = torch.randn(n, n, dtype=torch.bfloat16, device="cuda", generator=g)
    for _ in range(warmup):
        c = torch.matmul(a, b)
    torch.cuda.synchronize()
    per = []
    for _ in range(iters):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        c = torch.matmul(a, b)
        e.record()
        e.synchronize()
        per.append(s.elapsed_time(e) / 1e3)
    del c
    med = statistics.median(per)
    return {"m": n, "n": n, "k": n, "dtype": "bf16", "median_us": med * 1e6,
            "tflops": 2.0 * n ** 3 / med / 1e12, "max_tflops": 2.0 * n ** 3 / min(per) / 1e12}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1G,4G")
    ap.add_argument("--gemm", type=int, default=8192)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--out")
    a = ap.parse_args()
    sizes = [parse_size(s) for s in a.sizes.split(",") if s]
    world = torch.cuda.device_count()
    res = {"torch": torch.__version__, "nccl": ".".join(map(str, torch.cuda.nccl.version())),
           "gpus": world, "gpu": torch.cuda.get_device_name(0),
           "matmul": matmul(a.gemm, a.iters, a.warmup)}
    if world >= 2 and sizes:
        ctx = mp.get_context("spawn")
        q = ctx.Queue()
        procs = [ctx.Process(target=allreduce_worker,
                             args=(r, world, sizes, a.iters, a.warmup, 29531, q))
                 for r in range(world)]
        for p in procs:
            p.start()
        res["all_reduce"] = q.get(timeout=600)
        for p in procs:
            p.join()
    text = json.dumps(res, indent=1)
    print(text)
    if a.out:
        with open(a.out, "w") as fh:
            fh.write(text + "\n")


if __name__ == "__main__":
    sys.exit(main())
