#!/usr/bin/env python3
"""models/validation/framework/host_bench.py - the host's time to issue a
kernel from eager PyTorch on the GPU machine, where the GPU's work is too
small to hide it: podplan's host_issue_us (frameworks.json) is such a time.

Each bench runs N iterations after a warm-up, synchronises, and divides the
wall time by the kernels the iterations launched (torch.profiler counts them
over one iteration):
  - mul: y = x * c on a 1,024-element tensor, no autograd (one kernel, the
    dispatcher and Python alone);
  - chain_fwd_bwd: 64 elementwise ops on a tensor that requires grad, then
    backward (autograd recording, the engine's C++ backward);
  - hf_layer: one Hugging Face LlamaDecoderLayer of each model in
    models/validation/framework/hf/ (SmolLM2-135M, Llama-3.2-1B), 16 tokens,
    forward and backward under torch.autocast(bfloat16) over fp32
    parameters as train_bench.py runs them: the model code's own issue rate;
  - hf_step: a whole training step of a campaign scenario (train_bench.py's
    model, wrapper and step: forward with the loss, backward, clipping,
    AdamW, zero_grad) at 16 tokens: the step's issue rate, embedding, loss,
    clipping and the optimizer's multi-tensor kernels included; hf_fwd its
    forward alone (Python issues each op; the backward is issued by
    autograd's C++ engine on its device thread, torch/csrc/autograd/engine.cpp:
    the step's rest over the kernels beyond the forward's is that part's rate).

Each bench is also timed "busy": the same iterations issued behind a
long GPU sleep (torch.cuda._sleep), so every kernel is enqueued while the
GPU is occupied, as in a training step whose kernels outlast their issue;
the host's wall time to issue them, without waiting for the GPU, over the
kernels (busy_host_us_per_kernel). A busy figure is kept only where the
issue ended before the sleep did (busy_blocked 0: the launch queue never
filled).

    python3 host_bench.py --out host.csv [--only BENCH,...]
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fwcommon as fw  # noqa: E402

COLUMNS = ["bench", "model", "tokens", "iters", "kernels_per_iter", "wall_us_per_iter",
           "host_us_per_kernel", "gpu_busy_us_per_iter", "busy_iters", "busy_host_us_per_kernel",
           "busy_blocked", "torch", "gpu", "notes"]
SLEEP_S = 3.0  # the GPU sleep the busy issue runs behind


def busy(fn, iters, kernels):
    """Host microseconds per kernel issuing iters calls of fn behind a GPU
    sleep of SLEEP_S, and whether the issue outlasted the sleep (then the
    launch queue filled and the figure is not the issue's)."""
    import torch
    rate = 2.0e9  # cycles per second, about the H200's SM clock: the sleep need only be long
    torch.cuda.synchronize()
    torch.cuda._sleep(int(SLEEP_S * rate))
    t = time.perf_counter()
    for _ in range(iters):
        fn()
    host = time.perf_counter() - t
    t_all = time.perf_counter()
    torch.cuda.synchronize()
    waited = time.perf_counter() - t_all
    blocked = 1 if waited < 0.05 * SLEEP_S else 0
    return host / (iters * kernels) * 1e6, blocked


def kernels_of(fn):
    """Kernels launched and GPU busy microseconds of one fn() call (the
    profiler's trace, as train_bench.py reads it)."""
    import tempfile
    import torch
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
        fn()
        torch.cuda.synchronize()
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        p.export_chrome_trace(path)
        with open(path) as f:
            ev = json.load(f).get("traceEvents", [])
    finally:
        os.unlink(path)
    k = [e for e in ev if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy",
                                                                   "gpu_memset")]
    return len(k), sum(float(e.get("dur", 0)) for e in k)


def timed(fn, iters):
    import torch
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(iters):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t) / iters * 1e6


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    fw.add_deadline_args(ap)
    ap.add_argument("--only", default="", help="comma-separated bench names (mul, chain_fwd_bwd, "
                    "hf_layer, hf_fwd, hf_step)")
    a = ap.parse_args()
    only = set(a.only.split(",")) if a.only else None
    import torch
    vers = fw.versions()
    w = fw.RowWriter(a.out, COLUMNS)
    x = torch.randn(1024, device="cuda")

    def mul():
        return x * 1.0001

    xs = torch.randn(1024, device="cuda", requires_grad=True)

    def chain():
        y = xs
        for _ in range(32):
            y = y * 1.0001
            y = y + 0.0001
        y.sum().backward()

    benches = [("mul", "-", 0, mul, 2000), ("chain_fwd_bwd", "-", 0, chain, 200)]
    from transformers.models.llama.modeling_llama import LlamaDecoderLayer, LlamaRotaryEmbedding
    for name in ("smollm2-135m", "llama-3.2-1b"):
        hf = json.load(open(os.path.join(fw.HERE, "hf", name + ".json")))
        cfg = fw.llama_config(hf, use_cache=False)
        layer = LlamaDecoderLayer(cfg, layer_idx=0).cuda().train()
        rope = LlamaRotaryEmbedding(cfg).cuda()
        T = 16
        h = torch.randn(1, T, cfg.hidden_size, device="cuda", requires_grad=True)
        pos = torch.arange(T, device="cuda")[None]

        def step(layer=layer, rope=rope, h=h, pos=pos):
            with torch.autocast("cuda", dtype=torch.bfloat16):
                pe = rope(h, pos)
                out = layer(h, position_embeddings=pe)
                out = out[0] if isinstance(out, tuple) else out
            out.float().sum().backward()

        benches.append(("hf_layer", name, T, step, 100))
    import train_bench as tb
    steps = fw.load_scenarios({"fw-h200-plain-smollm2-135m-s2k-mb8-none",
                               "fw-h200-plain-smollm2-135m-s4k-mb4-full",
                               "fw-h200-plain-1b-s2k-mb4-none"})
    for sc in steps:
        sc = dict(sc, seq=16, micro_batch=1)
        m, opt, amp, _, _, _, _, notes = tb.build(sc)
        ids = [torch.randint(0, sc["hf"]["vocab_size"], (1, 16), device="cuda") for _ in range(2)]
        st, _ = tb.make_step(m, opt, amp, ids, sc["clip"], notes)

        def fwd(m=m, amp=amp, ids=ids[0]):
            with amp():
                return m(input_ids=ids, labels=ids).loss.detach()

        benches.append(("hf_fwd", sc["name"], 16, fwd, 50))
        benches.append(("hf_step", sc["name"], 16, st, 50))
    for bench, model, tokens, fn, iters in benches:
        if not fw.deadline_of(a).allows(10):
            break
        if only and bench not in only:
            continue
        try:
            fn()
            n, gbusy = kernels_of(fn)
            wall = timed(fn, iters)
            bi = max(1, min(iters, 800 // max(n, 1)))
            bus, blocked = busy(fn, bi, n) if n else ("", "")
            w.row(dict(bench=bench, model=model, tokens=tokens, iters=iters, kernels_per_iter=n,
                       wall_us_per_iter=wall, host_us_per_kernel=wall / n if n else "",
                       gpu_busy_us_per_iter=gbusy, busy_iters=bi, busy_host_us_per_kernel=bus,
                       busy_blocked=blocked, torch=vers["torch"], gpu=vers["gpu"]))
            fw.log("%-14s %-14s %5d kernels  %8.1f us/iter  %6.2f us/kernel  GPU busy %.1f us  "
                   "busy issue %s us/kernel over %d iters%s" % (
                       bench, model, n, wall, wall / n if n else 0, gbusy,
                       "%.2f" % bus if bus != "" else "-", bi, " (blocked)" if blocked else ""))
        except Exception as e:  # noqa: BLE001 - one bench's failure is a row
            w.row(dict(bench=bench, model=model, notes=("%s: %s" % (type(e).__name__, e))[:300]))
            fw.log("%s failed: %s" % (bench, e))
    w.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
