#!/usr/bin/env python3
"""models/validation/framework/micro_bench.py - two mechanisms of issue 14
measured alone in PyTorch on one GPU, for the engine's models of them to be
checked against:

1. The cross-entropy chain as transformers runs it for LlamaForCausalLM
   (loss_utils.ForCausalLMLoss: logits in the compute dtype, then
   .float(), then cross_entropy): 8192 tokens, vocabulary 128256, hidden
   2048 and 3072 (Llama-3.2-1B and 3B); parts timed alone - the logits GEMM
   (bf16), the fp32 upcast, the fp32 cross-entropy forward - and the whole
   chain forward and forward + backward (the backward's share = their
   difference), with the peak memory the chain allocates above its inputs.
2. torch.nn.functional.scaled_dot_product_attention at the training shapes
   of the campaign (causal; Llama-3.2-3B: 24 query heads, 8 KV heads, head
   size 128; 1B: 32 / 8 / 64; micro batch x sequence = 4 x 2048, 2 x 4096,
   1 x 8192), keys and values repeated to the query heads as transformers'
   sdpa_attention does (and once with enable_gqa=True), forward and forward
   + backward, on each backend PyTorch offers (flash, memory-efficient,
   cuDNN, and PyTorch's own choice), each output checked against the
   math backend's on a slice.

3. The elementwise chains of a Hugging Face Llama layer as the campaign's
   training runs them (torch.autocast to bf16 over fp32 parameters, the fp32
   residual stream): LlamaRMSNorm, apply_rotary_pos_emb on q and k, the
   SwiGLU product act_fn(gate) * up, the residual add - each forward and
   forward + backward (autograd), at 8192 tokens of Llama-3.2-3B's widths
   (hidden 3072, 24 / 8 heads of 128, intermediate 8192); and a plain device
   copy of 1 GiB (clone). The bytes column is podplan's count for the chain
   (models/frameworks.json's eager-hf-autocast coefficients x 2-byte
   activations x elements, as sim/engine/layerops.c counts them), so GBps is
   the rate podplan would need to price the chain right; its ratio to the
   copy's rate is the quantity an elementwise implementation's bw_over_copy
   holds.

FLOPs are reported under a stated convention: attention forward 4 b h s^2 d
x 1/2 (causal, as executed by kernels that skip the masked half), backward
2.5 x forward (the recomputed scores included); GEMM 2 m n k.

    python3 micro_bench.py --out micro.csv [--deadline EPOCH_S]
"""
import argparse
import json
import os
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fwcommon as fw  # noqa: E402

COLUMNS = ["bench", "part", "backend", "batch", "seq", "heads", "kv_heads", "head_dim",
           "hidden", "tokens", "vocab", "median_s", "min_s", "max_s", "flop", "tflops",
           "bytes", "GBps", "peak_alloc_bytes", "rel_err", "status", "torch", "gpu", "notes"]

TOKENS, VOCAB = 8192, 128256


def ce_chain(w, vers, dl):
    import torch
    import torch.nn.functional as F
    for hidden in (2048, 3072):
        if not dl.allows(15):
            w.row(dict(bench="ce_chain", hidden=hidden, status="skipped: time budget"))
            continue
        base = dict(bench="ce_chain", hidden=hidden, tokens=TOKENS, vocab=VOCAB, torch=vers["torch"],
                    gpu=vers["gpu"], backend="cuBLAS via torch")
        try:
            torch.manual_seed(0)
            h = (torch.randn(TOKENS, hidden, device="cuda") * 1.0).to(torch.bfloat16).requires_grad_()
            W = (torch.randn(VOCAB, hidden, device="cuda") * 0.02).to(torch.bfloat16).requires_grad_()
            y = torch.randint(0, VOCAB, (TOKENS,), device="cuda")
            logits16 = (h @ W.t()).detach()
            logits32 = logits16.float()
            gemm_flop = 2.0 * TOKENS * VOCAB * hidden
            tv = float(TOKENS * VOCAB)

            def chain_fwd():
                return F.cross_entropy((h @ W.t()).float(), y)

            def chain_fwd_bwd():
                h.grad = W.grad = None
                loss = F.cross_entropy((h @ W.t()).float(), y)
                loss.backward()
                return loss

            parts = [
                ("logits_gemm", lambda: h.detach() @ W.detach().t(), gemm_flop,
                 (TOKENS * hidden + VOCAB * hidden) * 2 + tv * 2),
                ("upcast_fp32", lambda: logits16.float(), 0, tv * (2 + 4)),
                ("ce_fwd_fp32", lambda: F.cross_entropy(logits32, y), 0, tv * 4),
                ("chain_fwd", chain_fwd, gemm_flop, 0),
                ("chain_fwd_bwd", chain_fwd_bwd, 3 * gemm_flop, 0),
            ]
            for name, fn, flop, byts in parts:
                torch.cuda.synchronize()
                torch.cuda.reset_peak_memory_stats()
                before = torch.cuda.memory_allocated()
                with torch.no_grad() if name not in ("chain_fwd_bwd",) else torch.enable_grad():
                    med, mn, mx, out = fw.cuda_time(fn, 3, 10)
                peak = torch.cuda.max_memory_allocated() - before
                ok = bool(torch.isfinite(out.float()).all().item()) if out is not None else True
                w.row(dict(base, part=name, median_s=med, min_s=mn, max_s=mx, flop=flop or "",
                           tflops=flop / med / 1e12 if flop else "", bytes=byts or "",
                           GBps=byts / med / 1e9 if byts else "", peak_alloc_bytes=peak,
                           status="ok" if ok else "non-finite"))
                del out
            # the loss against a float64 recomputation on a slice
            with torch.no_grad():
                n = 256
                ref = F.cross_entropy((h[:n].double() @ W.double().t()), y[:n])
                got = F.cross_entropy((h[:n] @ W.t()).float(), y[:n]).double()
                w.row(dict(base, part="check_loss_vs_fp64", rel_err=float(abs(got - ref) / abs(ref)),
                           status="ok"))
            del h, W, y, logits16, logits32
            torch.cuda.empty_cache()
        except Exception as e:  # noqa: BLE001
            traceback.print_exc()
            w.row(dict(base, part="all", status="error", notes=str(e)[:300]))


def sdpa(w, vers, dl):
    import torch
    import torch.nn.functional as F
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except Exception as e:  # noqa: BLE001
        w.row(dict(bench="sdpa", status="error", notes="torch.nn.attention: %s" % e))
        return
    backends = [("flash", [SDPBackend.FLASH_ATTENTION]), ("efficient", [SDPBackend.EFFICIENT_ATTENTION]),
                ("cudnn", [SDPBackend.CUDNN_ATTENTION]), ("default", None)]
    shapes = [(4, 2048), (2, 4096), (1, 8192)]
    models = [(24, 8, 128), (32, 8, 64)]
    for hq, hkv, d in models:
        for b, s in shapes:
            if not dl.allows(10):
                w.row(dict(bench="sdpa", batch=b, seq=s, heads=hq, status="skipped: time budget"))
                continue
            base = dict(bench="sdpa", batch=b, seq=s, heads=hq, kv_heads=hkv, head_dim=d,
                        torch=vers["torch"], gpu=vers["gpu"])
            try:
                torch.manual_seed(1)
                q = torch.randn(b, hq, s, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
                k = torch.randn(b, hkv, s, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
                v = torch.randn(b, hkv, s, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
                rep = hq // hkv
                kr = k.detach().repeat_interleave(rep, dim=1).requires_grad_()
                vr = v.detach().repeat_interleave(rep, dim=1).requires_grad_()
                go = torch.randn(b, hq, s, d, device="cuda", dtype=torch.bfloat16)
                fwd_flop = 4.0 * b * hq * s * s * d * 0.5
                # the reference on a slice of the queries: the math backend in fp32
                sl = slice(s - 128, s)
                with torch.no_grad():
                    ref = F.scaled_dot_product_attention(q[:, :, :].float(), kr.float(), vr.float(),
                                                         is_causal=True)[:, :, sl]
                variants = [(n, bk, False) for n, bk in backends] + [("default+enable_gqa", None, True)]
                for name, bk, gqa in variants:
                    kk, vv = (k, v) if gqa else (kr, vr)
                    extra = {"enable_gqa": True} if gqa else {}

                    def fwd():
                        return F.scaled_dot_product_attention(q, kk, vv, is_causal=True, **extra)

                    def fwd_bwd():
                        q.grad = kk.grad = vv.grad = None
                        o = F.scaled_dot_product_attention(q, kk, vv, is_causal=True, **extra)
                        o.backward(go)
                        return o

                    try:
                        ctx = sdpa_kernel(bk) if bk else torch.enable_grad()
                        with ctx:
                            with torch.no_grad():
                                med, mn, mx, o = fw.cuda_time(fwd, 3, 10)
                            err = float((o[:, :, sl].float() - ref).norm() / ref.norm())
                            w.row(dict(base, part="fwd", backend=name, median_s=med, min_s=mn,
                                       max_s=mx, flop=fwd_flop, tflops=fwd_flop / med / 1e12,
                                       rel_err=err, status="ok" if err < 2e-2 else "wrong"))
                            med2, mn2, mx2, _ = fw.cuda_time(fwd_bwd, 3, 10)
                            w.row(dict(base, part="fwd_bwd", backend=name, median_s=med2, min_s=mn2,
                                       max_s=mx2, flop=3.5 * fwd_flop,
                                       tflops=3.5 * fwd_flop / med2 / 1e12, status="ok"))
                    except Exception as e:  # noqa: BLE001 - a backend this shape lacks
                        w.row(dict(base, part="fwd", backend=name, status="unavailable",
                                   notes=("%s: %s" % (type(e).__name__, e)).splitlines()[0][:200]))
                del q, k, v, kr, vr, go, ref
                torch.cuda.empty_cache()
            except Exception as e:  # noqa: BLE001
                traceback.print_exc()
                w.row(dict(base, part="all", status="error", notes=str(e)[:300]))


def elementwise(w, vers, dl, bf16=False):
    """bf16: the same chains on bf16 parameters and a bf16 stream, no
    autocast (eager-hf's counts: FSDP2's bf16 parameters)."""
    import torch
    import torch.nn.functional as F
    base = dict(bench="eltw", torch=vers["torch"], gpu=vers["gpu"],
                backend="eager (bf16)" if bf16 else "eager (autocast bf16)")
    pre = "bf16_" if bf16 else ""
    try:
        from transformers.models.llama.modeling_llama import LlamaRMSNorm, apply_rotary_pos_emb
    except Exception as e:  # noqa: BLE001
        w.row(dict(base, status="error", notes="transformers: %s" % e))
        return
    here = os.path.dirname(os.path.abspath(__file__))
    fwj = json.load(open(os.path.join(here, "..", "..", "frameworks.json")))
    co = {e["id"]: e for e in fwj["elementwise"]}["eager-hf" if bf16 else "eager-hf-autocast"]
    T, h, f, hq, hkv, d, act = 8192, 3072, 8192, 24, 8, 128, 2.0
    qw, kvw = hq * d, hkv * d
    try:
        torch.manual_seed(2)
        dev = "cuda"
        # a 1 GiB copy: read + written
        src = torch.empty(1 << 29, dtype=torch.bfloat16, device=dev).normal_()
        med, mn, mx, _ = fw.cuda_time(lambda: src.clone(), 3, 20)
        w.row(dict(base, part=pre + "copy_1GiB", backend="clone", median_s=med, min_s=mn, max_s=mx,
                   bytes=2.0 * src.numel() * 2, GBps=2.0 * src.numel() * 2 / med / 1e9, status="ok"))
        del src
        sd = torch.bfloat16 if bf16 else torch.float32  # the residual stream's dtype
        norm = LlamaRMSNorm(h, eps=1e-5).to(dev)  # fp32 weight, as the runs keep parameters
        if bf16:
            norm = norm.to(torch.bfloat16)
        x32 = torch.randn(1, T, h, device=dev, dtype=sd, requires_grad=True)
        g32 = torch.randn(1, T, h, device=dev, dtype=sd)
        q = torch.randn(1, hq, T, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
        k = torch.randn(1, hkv, T, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
        pos = torch.arange(T, device=dev, dtype=torch.float32)
        inv = 1.0 / (500000.0 ** (torch.arange(0, d, 2, device=dev, dtype=torch.float32) / d))
        fr = torch.outer(pos, inv)
        emb = torch.cat((fr, fr), dim=-1)[None]
        cos, sin = emb.cos().to(sd), emb.sin().to(sd)  # rotary_emb returns them .to(x.dtype)
        gate = torch.randn(1, T, f, device=dev, dtype=torch.bfloat16, requires_grad=True)
        up = torch.randn(1, T, f, device=dev, dtype=torch.bfloat16, requires_grad=True)
        o16 = torch.randn(1, T, h, device=dev, dtype=torch.bfloat16, requires_grad=True)

        def ac(fn):
            def run():
                with torch.autocast("cuda", dtype=torch.bfloat16, enabled=not bf16):
                    return fn()
            return run

        def bwd(fn, grads, wrt):
            # torch.autograd.grad, not backward: the gradients come back
            # without AccumulateGrad into the leaves' .grad (which clones a
            # gradient two leaves share, work a layer's interior never does)
            def run():
                with torch.autocast("cuda", dtype=torch.bfloat16, enabled=not bf16):
                    out = fn()
                outs = out if isinstance(out, tuple) else (out,)
                return torch.autograd.grad(outs, wrt, [g if g.dtype == o.dtype else g.to(o.dtype)
                                                       for o, g in zip(outs, grads)])[0]
            return run

        rope_fn = lambda: apply_rotary_pos_emb(q, k, cos, sin)  # noqa: E731
        gq = torch.randn(1, hq, T, d, device=dev, dtype=sd)
        gk = torch.randn(1, hkv, T, d, device=dev, dtype=sd)
        act_fn = lambda: F.silu(gate) * up  # noqa: E731
        gact = torch.randn(1, T, f, device=dev, dtype=torch.bfloat16)
        res_fn = lambda: x32 + o16  # noqa: E731
        chains = [
            # name, forward fn, backward fn, podplan's bytes fwd, bwd, kernels fwd
            ("norm", ac(lambda: norm(x32)), bwd(lambda: norm(x32), [g32], [x32, norm.weight]),
             co["norm_fwd"] * act * T * h, co["norm_bwd"] * act * T * h),
            ("rope", ac(rope_fn), bwd(rope_fn, [gq, gk], [q, k]),
             co["rope_fwd"] * act * T * (qw + kvw), co["rope_bwd"] * act * T * (qw + kvw)),
            ("act", ac(act_fn), bwd(act_fn, [gact], [gate, up]),
             co["act_fwd"] * act * T * f, co["act_bwd"] * act * T * f),
            ("resid", ac(res_fn), bwd(res_fn, [g32], [x32, o16]),
             co["resid_fwd"] * act * T * h, co["resid_bwd"] * act * T * h),
        ]
        for name, ffn, bfn, bf, bb in chains:
            if not dl.allows(8):
                w.row(dict(base, part=pre + name, status="skipped: time budget"))
                continue
            with torch.no_grad():
                mf, nf, xf, _ = fw.cuda_time(ffn, 3, 20)
            for t in (x32, q, k, gate, up, o16):
                t.grad = None
            mb, nb, xb, _ = fw.cuda_time(bfn, 3, 20)
            for t in (x32, q, k, gate, up, o16):
                t.grad = None
            w.row(dict(base, part=pre + name + "_fwd", tokens=T, hidden=h, heads=hq, kv_heads=hkv,
                       head_dim=d, median_s=mf, min_s=nf, max_s=xf, bytes=bf, GBps=bf / mf / 1e9,
                       status="ok", notes="bytes: podplan's %s count" % co["id"]))
            w.row(dict(base, part=pre + name + "_fwd_bwd", tokens=T, hidden=h, heads=hq, kv_heads=hkv,
                       head_dim=d, median_s=mb, min_s=nb, max_s=xb, bytes=bf + bb,
                       GBps=(bf + bb) / mb / 1e9, status="ok",
                       notes="bytes: podplan's %s count (forward + backward)" % co["id"]))
        del x32, g32, q, k, gate, up, o16, gq, gk, gact
        torch.cuda.empty_cache()
    except Exception as e:  # noqa: BLE001
        traceback.print_exc()
        w.row(dict(base, part="all", status="error", notes=str(e)[:300]))


def duty(w, vers, dl):
    """GEMMs at the power limit as a step's kernel mix sets it: a bf16 GEMM
    of 8192^3 alternating with device copies for a share 1 - g of the time,
    g = 1, 0.75, 0.5, 0.25, each for 4 s; the GEMMs' median rate over the
    last 2 s (clocks settled), beside a burst of the same GEMM after 1 s
    idle. For the engine's rate of GEMMs inside steps of differing mixes."""
    import time
    import torch
    base = dict(bench="duty", torch=vers["torch"], gpu=vers["gpu"], backend="cuBLAS via torch")
    try:
        n = 8192
        a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
        src = torch.empty(1 << 28, dtype=torch.bfloat16, device="cuda").normal_()
        dst = torch.empty_like(src)
        flop = 2.0 * n ** 3
        time.sleep(1.0)
        med, mn, mx, _ = fw.cuda_time(lambda: a @ b, 1, 5)
        w.row(dict(base, part="burst", median_s=med, min_s=mn, max_s=mx, flop=flop,
                   tflops=flop / med / 1e12, status="ok", notes="after 1 s idle: 1 warm-up, 5 timed"))
        t_copy = fw.cuda_time(lambda: dst.copy_(src), 2, 5)[0]
        for g in (1.0, 0.75, 0.5, 0.25):
            if not dl.allows(6):
                w.row(dict(base, part="duty_%.2f" % g, status="skipped: time budget"))
                continue
            copies = max(0, round(med * (1 - g) / g / t_copy)) if g < 1 else 0
            ev = []
            t0 = time.time()
            while time.time() - t0 < 4.0:
                s0 = torch.cuda.Event(enable_timing=True)
                e0 = torch.cuda.Event(enable_timing=True)
                s0.record()
                a @ b
                e0.record()
                for _ in range(copies):
                    dst.copy_(src)
                ev.append((time.time() - t0, s0, e0))
                if len(ev) % 64 == 0:
                    torch.cuda.synchronize()
            torch.cuda.synchronize()
            ts = sorted(s.elapsed_time(e) * 1e-3 for t, s, e in ev if t >= 2.0)
            if not ts:
                continue
            m = ts[len(ts) // 2]
            w.row(dict(base, part="duty_%.2f" % g, median_s=m, min_s=ts[0], max_s=ts[-1], flop=flop,
                       tflops=flop / m / 1e12, status="ok",
                       notes="%d copies of 512 MiB (%.3f ms each) after each GEMM; GEMMs of the last 2 s: %d"
                       % (copies, t_copy * 1e3, len(ts))))
            time.sleep(1.0)
        del a, b, src, dst
        torch.cuda.empty_cache()
    except Exception as e:  # noqa: BLE001
        traceback.print_exc()
        w.row(dict(base, part="all", status="error", notes=str(e)[:300]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--parts", default="ce_chain,sdpa,eltw",
                    help="comma-separated: ce_chain, sdpa, eltw, eltw_bf16, duty (default the first three)")
    fw.add_deadline_args(ap)
    a = ap.parse_args()
    import torch
    if not torch.cuda.is_available():
        fw.log("micro_bench: no CUDA GPU")
        return 1
    vers = fw.versions()
    dl = fw.deadline_of(a)
    w = fw.RowWriter(a.out, COLUMNS)
    parts = a.parts.split(",")
    for name, fn in (("eltw", elementwise), ("eltw_bf16", lambda *a: elementwise(*a, bf16=True)),
                     ("duty", duty), ("ce_chain", ce_chain), ("sdpa", sdpa)):
        if name in parts:
            fn(w, vers, dl)
    w.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
