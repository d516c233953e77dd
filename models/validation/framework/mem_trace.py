#!/usr/bin/env python3
"""models/validation/framework/mem_trace.py - where the caching allocator's
reservation grows in a training step (issue 14, memory as frameworks
allocate it): one scenario of train_bench.py, built and stepped the same
way, with PyTorch's allocator history recorded
(torch.cuda.memory._record_memory_history) from before the model is built
through `--steps` steps.

Phase markers (a small-pool allocation of a size no model tensor has, made
and freed at each boundary: the step's start, after the forward with the
loss, after the backward, after clipping, after AdamW's step, after
zero_grad) split the trace into phases. Written:

  --phases CSV   per step and phase: bytes allocated and reserved at its
                 end, the largest of each inside it, the segments the
                 allocator created (count, bytes) and the free bytes it
                 held when it created them (reserved - allocated: a new
                 segment while that exceeds the request is fragmentation)
  --segments CSV every segment_alloc: its phase, its size, the request that
                 caused it, allocated and reserved before it
  --final CSV    the segments at the end (total, allocated, largest free
                 block), one row each

    python3 mem_trace.py --only NAME --variant default|keepgrads \
        --phases P.csv --segments S.csv --final F.csv [--steps 3]

keepgrads: zero_grad(set_to_none=False) (the gradients stay allocated
between steps). expandable_segments is an environment setting
(PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True) read when CUDA starts:
set it around the process and name the variant so.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fwcommon as fw  # noqa: E402
import train_bench as tb  # noqa: E402

PHASES = ["start", "forward", "backward", "clip", "optimizer", "zero_grad"]
MARK0 = 777 * 512  # small pool (< 1 MiB), a size no tensor of these models has


def mark(torch, k):
    t = torch.empty(MARK0 + 512 * k, dtype=torch.uint8, device="cuda")
    del t


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", required=True)
    ap.add_argument("--variant", default="default")
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--phases", required=True)
    ap.add_argument("--segments", required=True)
    ap.add_argument("--final", required=True)
    ap.add_argument("--allocs", default="",
                    help="also every allocation, free and segment of at least 16 MiB with "
                         "its address, step and phase (where the blocks went)")
    a = ap.parse_args()
    import torch
    sc = fw.load_scenarios({a.only})[0]
    try:  # no stacks: the trace's sizes and order are what is read
        torch.cuda.memory._record_memory_history(enabled="all", context=None, stacks="python",
                                                 max_entries=4000000)
    except TypeError:
        torch.cuda.memory._record_memory_history(max_entries=4000000)
    torch.cuda.reset_peak_memory_stats()
    model, opt, amp, _attn, _pd, _c, _n, _notes = tb.build(sc)
    vocab = sc["hf"]["vocab_size"]
    g = torch.Generator(device="cuda")
    g.manual_seed(1234)
    shape = (sc["micro_batch"], sc["seq"])
    batches = [torch.randint(0, vocab, shape, device="cuda", generator=g) for _ in range(2)]
    params = [p for p in model.parameters() if p.requires_grad]
    keep = a.variant == "keepgrads"
    for s in range(a.steps):
        ids = batches[s % 2]
        mark(torch, 6 * s + 0)
        with amp():
            out = model(input_ids=ids, labels=ids)
        loss = out.loss
        mark(torch, 6 * s + 1)
        loss.backward()
        mark(torch, 6 * s + 2)
        torch.nn.utils.clip_grad_norm_(params, sc["clip"] or 1.0)
        mark(torch, 6 * s + 3)
        opt.step()
        mark(torch, 6 * s + 4)
        opt.zero_grad(set_to_none=not keep)
        mark(torch, 6 * s + 5)
        del out, loss
    torch.cuda.synchronize()
    max_res, max_alloc = torch.cuda.max_memory_reserved(), torch.cuda.max_memory_allocated()
    snap = torch.cuda.memory._snapshot()
    torch.cuda.memory._record_memory_history(enabled=None)
    trace = snap["device_traces"][0]
    marks = {MARK0 + 512 * k: k for k in range(6 * a.steps)}
    alloc = res = 0
    phase = -1  # before the first step: the build
    ph = {}
    seg_rows = []
    big_rows = []
    pending = None  # a segment_alloc waiting for the request it serves

    def cur():
        return ph.setdefault(phase, dict(step=phase // 6 if phase >= 0 else -1,
                                         phase=PHASES[phase % 6] if phase >= 0 else "build",
                                         max_alloc=0, max_res=0, seg_n=0, seg_bytes=0,
                                         seg_free_before=0))
    for ev in trace:
        act, size = ev["action"], int(ev["size"])
        if act == "alloc" and size in marks and ev.get("stream", 0) == 0:
            d = cur()
            d.update(alloc_end=alloc, res_end=res)
            phase = marks[size] + 1 if marks[size] + 1 < 6 * a.steps else 6 * a.steps
            continue
        if act == "free_requested" and size in marks:
            continue
        if act == "free_completed" and size in marks:
            continue
        if a.allocs and size >= 16 << 20 and act in ("alloc", "free_completed", "segment_alloc",
                                                      "segment_free"):
            d = cur()
            big_rows.append(dict(step=d["step"], phase=d["phase"], action=act,
                                 addr=int(ev.get("addr", 0)), size=size))
        if act == "segment_alloc":
            d = cur()
            d["seg_n"] += 1
            d["seg_bytes"] += size
            d["seg_free_before"] += res - alloc
            pending = dict(step=d["step"], phase=d["phase"], segment_bytes=size,
                           allocated_before=alloc, reserved_before=res)
            res += size
        elif act == "segment_free":
            res -= size
        elif act == "alloc":
            alloc += size
            if pending is not None:
                pending["request_bytes"] = size
                seg_rows.append(pending)
                pending = None
        elif act == "free_completed":
            alloc -= size
        d = cur()
        d["max_alloc"] = max(d["max_alloc"], alloc)
        d["max_res"] = max(d["max_res"], res)
    cur().update(alloc_end=alloc, res_end=res)
    common = dict(config=sc["name"], variant=a.variant,
                  alloc_conf=os.environ.get("PYTORCH_CUDA_ALLOC_CONF", ""),
                  max_memory_reserved=max_res, max_memory_allocated=max_alloc,
                  trace_events=len(trace))
    w = fw.RowWriter(a.phases, ["config", "variant", "alloc_conf", "step", "phase", "alloc_end",
                                "res_end", "max_alloc", "max_res", "seg_n", "seg_bytes",
                                "seg_free_before", "max_memory_reserved",
                                "max_memory_allocated", "trace_events"])
    for k in sorted(ph):
        w.row(dict(common, **ph[k]))
    w.close()
    w = fw.RowWriter(a.segments, ["config", "variant", "step", "phase", "segment_bytes",
                                  "request_bytes", "allocated_before", "reserved_before"])
    for r in seg_rows:
        w.row(dict(config=sc["name"], variant=a.variant, **r))
    w.close()
    if a.allocs:
        w = fw.RowWriter(a.allocs, ["config", "variant", "step", "phase", "action", "addr",
                                    "size"])
        for r in big_rows:
            w.row(dict(config=sc["name"], variant=a.variant, **r))
        w.close()
    w = fw.RowWriter(a.final, ["config", "variant", "segment", "total_size", "allocated_size",
                               "largest_free", "blocks", "stream"])
    for i, sg in enumerate(snap["segments"]):
        free = [b["size"] for b in sg["blocks"] if b["state"] == "inactive"]
        w.row(dict(config=sc["name"], variant=a.variant, segment=i, total_size=sg["total_size"],
                   allocated_size=sg["allocated_size"], largest_free=max(free) if free else 0,
                   blocks=len(sg["blocks"]), stream=sg.get("stream", "")))
    w.close()
    fw.log("%s %s: reserved %.2f GiB, allocated %.2f GiB, %d events" % (
        sc["name"], a.variant, max_res / 2**30, max_alloc / 2**30, len(trace)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
