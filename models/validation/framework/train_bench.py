#!/usr/bin/env python3
"""models/validation/framework/train_bench.py - training steps of Hugging Face
LlamaForCausalLM under PyTorch on one GPU, one row per scenario of
models/validation/framework/scenarios/ (issue 14's framework validation set).

For each scenario: the model built from its config.json on the GPU (random
initialisation, SDPA attention), wrapped as its "_run" says (none; DDP or
FSDP2 fully_shard at world size 1, over an NCCL process group of one rank:
their collectives are degenerate, what they add is their hooks, buckets and,
for FSDP2, bf16 parameter copies), torch.optim.AdamW, gradient clipping at
1.0, real loss (transformers' own, logits upcast to fp32) on synthetic token
batches (uniform random ids, labels = inputs), gradient checkpointing of
every decoder layer when recompute is "full", torch.compile of every decoder
layer when the scenario's training.torch_compile is true. Warm-up steps, then the
median step time over the timed steps between CUDA events (forward,
backward, clipping, optimizer step, zero_grad), the peak memory the caching
allocator reserved and allocated (torch.cuda.max_memory_reserved /
max_memory_allocated, from a reset before the model is built), tokens/s.

    python3 train_bench.py --out train.csv [--deadline EPOCH_S] [--only NAME,...]
                           [--profile kernels.csv]

--profile: after the timed steps, one step with the allocated bytes read at
each phase (forward, backward, optimizer), then two steps under
torch.profiler: each kernel's GPU time and count per step, by name and by
family (GEMM, attention, elementwise, ...), the GPU's busy time and span, and
the launches the host issued (see profile_steps).

Each row is written as soon as it is measured. A configuration that fails
(out of memory, an API that differs) gets a row with its status and the
error, and the next one runs. Exit status 0 when every row was measured.
"""
import argparse
import gc
import os
import subprocess
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fwcommon as fw  # noqa: E402

COLUMNS = ["config", "framework", "wrapper", "model", "seq", "micro_batch", "recompute",
           "status", "step_s_median", "step_s_min", "step_s_max", "step_s_wall_mean",
           "tokens_per_s", "max_memory_reserved", "max_memory_allocated",
           "memory_reserved_end", "alloc_retries", "warmup", "steps", "loss_first",
           "loss_last", "attn_implementation", "param_dtype", "compute_dtype", "optimizer",
           "clip", "params", "build_s", "torch", "transformers", "gpu", "notes", "scenario"]


def init_process_group():
    """One NCCL rank on this GPU, for DDP and FSDP2."""
    import torch
    import torch.distributed as dist
    if dist.is_initialized():
        return
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29517")
    kw = {}
    try:
        kw["device_id"] = torch.device("cuda", 0)
        dist.init_process_group("nccl", rank=0, world_size=1, **kw)
    except TypeError:
        dist.init_process_group("nccl", rank=0, world_size=1)


def build(sc):
    """The model, wrapped, its optimizer, the autocast context and notes."""
    import contextlib
    import torch
    from transformers import LlamaForCausalLM
    cfg = fw.llama_config(sc["hf"], use_cache=False)
    with torch.device("cuda"):
        model = LlamaForCausalLM(cfg)
    attn = fw.set_sdpa(model)
    model.train()
    if sc["recompute"] == "full":
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    notes = []
    if sc.get("compile"):
        # each decoder layer compiled on its own, as TorchTitan compiles each
        # block: one graph for the layer's forward and one for its backward,
        # shared by every layer; the embedding, final norm, output layer, loss
        # and optimizer stay eager
        for layer in model.model.layers:
            layer.compile()
        notes.append("torch.compile of each decoder layer (nn.Module.compile, default mode)")
    amp = contextlib.nullcontext
    compute = "bfloat16"
    if sc["wrapper"] == "none":
        amp = lambda: torch.autocast("cuda", dtype=torch.bfloat16)  # noqa: E731
    elif sc["wrapper"] == "ddp":
        init_process_group()
        from torch.nn.parallel import DistributedDataParallel as DDP
        model = DDP(model, device_ids=[0])
        amp = lambda: torch.autocast("cuda", dtype=torch.bfloat16)  # noqa: E731
    elif sc["wrapper"] == "fsdp2":
        init_process_group()
        from torch.distributed.device_mesh import init_device_mesh
        from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
        mesh = init_device_mesh("cuda", (1,))
        mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
        for layer in model.model.layers:
            fully_shard(layer, mesh=mesh, mp_policy=mp)
        fully_shard(model, mesh=mesh, mp_policy=mp)
        notes.append("fully_shard per decoder layer + root, reshard_after_forward default")
    else:
        raise ValueError("unknown wrapper %r" % sc["wrapper"])
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=1e-5, betas=(0.9, 0.95), weight_decay=0.1)
    pdtype = str(params[0].dtype).replace("torch.", "")
    nparams = sum(p.numel() for p in params)
    return model, opt, amp, attn, pdtype, compute, nparams, notes


# kernel families by name (cuBLAS/CUTLASS GEMMs, fused attention, the
# optimizer's multi-tensor kernels, reductions, elementwise, copies); the
# first pattern that matches names the family
FAMILIES = [
    ("attention", ("flash", "fmha", "sdpa", "attn", "cudnn")),
    ("gemm", ("gemm", "nvjet", "xmma", "cutlass", "cublas", "sm90_", "s16816", "splitk")),
    ("optimizer", ("multi_tensor_apply", "fused_adam", "adam")),
    ("cross_entropy", ("softmax", "nll_loss", "cross_entropy", "log_softmax")),
    ("reduction", ("reduce_kernel", "reduce", "norm")),
    ("copy", ("copy", "cat", "index", "gather", "scatter", "embedding", "fill", "memset",
              "memcpy")),
    ("elementwise", ("elementwise", "vectorized", "unrolled", "pointwise")),
    ("nccl", ("nccl",)),
]


def family(name):
    n = name.lower()
    for fam, pats in FAMILIES:
        if any(p in n for p in pats):
            return fam
    return "other"


PROFILE_COLUMNS = ["config", "kind", "name", "family", "count_per_step", "us_per_step",
                   "notes"]


def profile_steps(sc, step, state, w, row, nsteps=2):
    """Memory at each phase of one step, then nsteps steps under
    torch.profiler: every kernel's time and count per step by name and by
    family, the GPU's busy time (the union of kernel intervals), its span and
    the kernel launches the host issued. The profiler slows the host, so the
    unprofiled median step beside them is the step's time."""
    import json
    import tempfile
    import torch
    from torch.profiler import ProfilerActivity, profile
    cfg = sc["name"]
    state["peaks"] = {}
    step()
    torch.cuda.synchronize()
    for k, v in state.pop("peaks").items():
        w.row(dict(config=cfg, kind="memory", name=k, us_per_step="", count_per_step=v,
                   notes="bytes allocated (torch.cuda.memory_allocated / max_memory_allocated "
                         "since the previous mark)"))
    w.row(dict(config=cfg, kind="memory", name="max_memory_reserved",
               count_per_step=torch.cuda.max_memory_reserved(), notes="bytes"))
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
        for _ in range(nsteps):
            step()
        torch.cuda.synchronize()
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        p.export_chrome_trace(path)
        with open(path) as f:
            ev = json.load(f).get("traceEvents", [])
    finally:
        os.unlink(path)
    kern = [e for e in ev if e.get("ph") == "X" and e.get("cat") in (
        "kernel", "gpu_memcpy", "gpu_memset")]
    launches = sum(1 for e in ev if e.get("ph") == "X" and e.get("cat") == "cuda_runtime"
                   and "Launch" in e.get("name", ""))
    by_name, by_fam = {}, {}
    for e in kern:
        nm = e.get("name", "?")
        d = float(e.get("dur", 0))
        a = by_name.setdefault(nm, [0, 0.0])
        a[0] += 1
        a[1] += d
        b = by_fam.setdefault(family(nm), [0, 0.0])
        b[0] += 1
        b[1] += d
    iv = sorted((float(e["ts"]), float(e["ts"]) + float(e.get("dur", 0))) for e in kern)
    busy, end = 0.0, None
    for a, b in iv:
        if end is None or a > end:
            busy += b - a
            end = b
        elif b > end:
            busy += b - end
            end = b
    span = (iv[-1][1] - iv[0][0]) if iv else 0.0
    summ = [("kernels", len(kern), ""), ("launch_calls", launches, ""),
            ("gpu_busy", "", busy), ("gpu_span", "", span),
            ("step_unprofiled", "", row.get("step_s_median", 0) * 1e6 * nsteps)]
    for nm, c, us in summ:
        w.row(dict(config=cfg, kind="summary", name=nm,
                   count_per_step=(c / nsteps) if c != "" else "",
                   us_per_step=(us / nsteps) if us != "" else ""))
    for fam, (c, us) in sorted(by_fam.items(), key=lambda x: -x[1][1]):
        w.row(dict(config=cfg, kind="family", name=fam, family=fam,
                   count_per_step=c / nsteps, us_per_step=us / nsteps))
    for nm, (c, us) in sorted(by_name.items(), key=lambda x: -x[1][1]):
        w.row(dict(config=cfg, kind="kernel", name=nm[:200], family=family(nm),
                   count_per_step=c / nsteps, us_per_step=us / nsteps))


def make_step(model, opt, amp, batches, clip, notes, accum=1):
    """One training step as the campaign times it (forward with the loss and
    backward of each of accum micro-batches, clip_grad_norm_, AdamW's step,
    zero_grad(set_to_none=True)),
    alternating the given batches, and its state dict ("peaks": a dict to
    fill with the allocator's figures by phase; "clip_ok")."""
    import torch
    state = {"i": 0, "clip_ok": clip > 0}
    params = [p for p in model.parameters() if p.requires_grad]

    def step():
        peaks = state.get("peaks")
        if peaks is not None:
            torch.cuda.reset_peak_memory_stats()
            peaks["step_start"] = torch.cuda.memory_allocated()
        # accum micro-batches, their gradients accumulated (the last one's
        # phases are the ones recorded)
        for _ in range(accum):
            ids = batches[state["i"] % 2]
            state["i"] += 1
            with amp():
                out = model(input_ids=ids, labels=ids)
            loss = out.loss
            if peaks is not None:
                peaks["forward_peak"] = torch.cuda.max_memory_allocated()
                peaks["forward_end"] = torch.cuda.memory_allocated()
                torch.cuda.reset_peak_memory_stats()
            (loss / accum if accum > 1 else loss).backward()
            if peaks is not None:
                peaks["backward_peak"] = torch.cuda.max_memory_allocated()
                peaks["backward_end"] = torch.cuda.memory_allocated()
                torch.cuda.reset_peak_memory_stats()
        if state["clip_ok"]:
            try:
                torch.nn.utils.clip_grad_norm_(params, clip)
            except Exception as e:  # noqa: BLE001 - recorded; the step goes on
                state["clip_ok"] = False
                notes.append("clip_grad_norm_ failed, no clipping: %s" % str(e)[:120])
        opt.step()
        opt.zero_grad(set_to_none=True)
        if peaks is not None:
            peaks["optimizer_peak"] = torch.cuda.max_memory_allocated()
            peaks["step_end"] = torch.cuda.memory_allocated()
        return loss.detach()

    return step, state


def run_one(sc, vers, prof=None):
    import torch
    row = dict(config=sc["name"], framework="pytorch", wrapper=sc["wrapper"], model=sc["model"],
               seq=sc["seq"], micro_batch=sc["micro_batch"], recompute=sc["recompute"],
               warmup=sc["warmup"], steps=sc["steps"], scenario=sc["path"],
               torch=vers["torch"], transformers=vers["transformers"], gpu=vers["gpu"],
               optimizer="AdamW (foreach default)", clip=sc["clip"])
    model = opt = None
    try:
        gc.collect()
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
        t0 = time.time()
        model, opt, amp, attn, pdtype, compute, nparams, notes = build(sc)
        row.update(attn_implementation=attn, param_dtype=pdtype, compute_dtype=compute,
                   params=nparams)
        vocab = sc["hf"]["vocab_size"]
        g = torch.Generator(device="cuda")
        g.manual_seed(1234)
        shape = (sc["micro_batch"], sc["seq"])
        batches = [torch.randint(0, vocab, shape, device="cuda", generator=g) for _ in range(2)]
        clip = sc["clip"]
        step, state = make_step(model, opt, amp, batches, clip, notes, sc.get("accum", 1))
        first = step()
        torch.cuda.synchronize()
        row["build_s"] = time.time() - t0
        row["loss_first"] = float(first.float().item())
        tw = time.time()
        med, mn, mx, last = fw.cuda_time(step, sc["warmup"] - 1, sc["steps"])
        wall = (time.time() - tw) / (sc["warmup"] - 1 + sc["steps"])
        # the timed window in epoch seconds, to read a clock log against
        fw.log("%s: timed steps from %.3f to %.3f" % (sc["name"], tw, time.time()))
        stats = torch.cuda.memory_stats()
        row.update(status="ok", step_s_median=med, step_s_min=mn, step_s_max=mx,
                   step_s_wall_mean=wall,
                   tokens_per_s=sc["micro_batch"] * sc.get("accum", 1) * sc["seq"] / med,
                   max_memory_reserved=torch.cuda.max_memory_reserved(),
                   max_memory_allocated=torch.cuda.max_memory_allocated(),
                   memory_reserved_end=torch.cuda.memory_reserved(),
                   alloc_retries=stats.get("num_alloc_retries", ""),
                   loss_last=float(last.float().item()))
        if not state["clip_ok"] and clip > 0:
            row["clip"] = "failed"
        row["notes"] = "; ".join(notes)
        if prof is not None:
            profile_steps(sc, step, state, prof, row)
    except torch.cuda.OutOfMemoryError as e:
        row.update(status="oom", max_memory_reserved=torch.cuda.max_memory_reserved(),
                   max_memory_allocated=torch.cuda.max_memory_allocated(),
                   notes=str(e).splitlines()[0][:300])
    except Exception as e:  # noqa: BLE001 - one configuration's failure is a row
        row.update(status="error", notes=("%s: %s" % (type(e).__name__, e))[:400])
        traceback.print_exc()
    finally:
        del model, opt
        gc.collect()
        torch.cuda.empty_cache()
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    fw.add_deadline_args(ap)
    ap.add_argument("--only", default="", help="comma-separated scenario names")
    ap.add_argument("--isolate", action="store_true",
                    help="each configuration in a process of its own (nothing a previous "
                         "configuration left allocated counts in the next one's peak)")
    ap.add_argument("--profile", default="",
                    help="also write each configuration's kernels (torch.profiler, 2 steps "
                         "after the timed ones) and memory by phase to this CSV")
    a = ap.parse_args()
    import torch
    if not torch.cuda.is_available():
        fw.log("train_bench: no CUDA GPU")
        return 1
    vers = fw.versions()
    fw.log("train_bench:", vers)
    dl = fw.deadline_of(a)
    scs = fw.load_scenarios(set(a.only.split(",")) if a.only else None)
    # the plain loop first, then DDP, then FSDP2: if time runs short, the
    # rows that span the sizes and sequences are in
    order = {"none": 0, "ddp": 1, "fsdp2": 2}
    scs.sort(key=lambda sc: (order.get(sc["wrapper"], 9), sc["name"]))
    w = fw.RowWriter(a.out, COLUMNS)
    pw = fw.RowWriter(a.profile, PROFILE_COLUMNS) if a.profile else None
    bad = 0
    for sc in scs:
        # a 3B step at 8K tokens is well under a second; building and the
        # steps of one configuration take under 20 s
        need = (25 if sc["model"].endswith("3B") else 12) + (10 if a.isolate else 0) + \
            (60 if sc.get("compile") else 0)
        if not dl.allows(need):
            w.row(dict(config=sc["name"], framework="pytorch", wrapper=sc["wrapper"],
                       model=sc["model"], seq=sc["seq"], micro_batch=sc["micro_batch"],
                       recompute=sc["recompute"], status="skipped: time budget",
                       scenario=sc["path"]))
            bad += 1
            continue
        t = time.time()
        if a.isolate:
            # the child appends its row to the same file (RowWriter opens it for append)
            cmd = [sys.executable, os.path.abspath(__file__), "--out", a.out, "--only", sc["name"]]
            if dl.at is not None:
                cmd += ["--deadline", repr(dl.at)]
            if a.profile:
                cmd += ["--profile", a.profile]
            rc = subprocess.run(cmd).returncode
            fw.log("%-40s exit %d (%.0f s, own process)" % (sc["name"], rc, time.time() - t))
            bad += rc != 0
            continue
        r = run_one(sc, vers, pw)
        w.row(r)
        bad += r.get("status") != "ok"
        fw.log("%-40s %-6s %8s s/step %6s GiB reserved  (%.0f s)" % (
            sc["name"], r.get("status"), "%.4f" % r["step_s_median"] if r.get("step_s_median") else "-",
            "%.1f" % (r["max_memory_reserved"] / 2**30) if r.get("max_memory_reserved") else "-",
            time.time() - t))
    w.close()
    if pw:
        pw.close()
    try:
        import torch.distributed as dist
        if dist.is_initialized():
            dist.destroy_process_group()
    except Exception:  # noqa: BLE001
        pass
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
