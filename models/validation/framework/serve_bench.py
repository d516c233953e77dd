#!/usr/bin/env python3
"""models/validation/framework/serve_bench.py - the real-engine serving check of
issue 16 on one GPU: Hugging Face transformers' generate() with a static KV
cache (cache_implementation="static") for Llama-3.2-1B and 3B built from
their config.json (random initialisation, bf16 weights, SDPA attention), at
batch 1, 8 and 32, input 512 and 2048 tokens, output 128 tokens (greedy, no
end-of-sequence token, so every sequence runs the full 128).

generate's automatic torch.compile of the decode step (which static caches
turn on) is disabled (disable_compile=True): a compile per shape would not
fit the call, and the figures are those of eager PyTorch, whose per-token
latency carries the launch cost of every kernel (no CUDA graphs) - what
podplan's eager launch-cost mechanism is to be checked against.

Timing: a streamer's put() is called by generate once with the prompt and
then once per step with the new tokens, after they were copied to the host
(.cpu(), which waits for the GPU); TTFT = first new token's put - the call's
start (so it includes the allocation of the static cache, which generate
makes when the cache it holds is too small for the call); per-token
latency (TPOT) = (last put - first put) / (tokens - 1), and the median gap
between puts (ITL). A 4-token generate of the same shape runs first as a
warm-up.

    python3 serve_bench.py --out serve.csv [--deadline EPOCH_S]
"""
import argparse
import gc
import os
import statistics
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fwcommon as fw  # noqa: E402

COLUMNS = ["config", "model", "batch", "input_len", "output_len", "status", "ttft_s",
           "tpot_s", "itl_median_s", "e2e_s", "output_tokens", "output_throughput",
           "max_memory_reserved", "cache_implementation", "compile", "attn_implementation",
           "torch", "transformers", "gpu", "notes"]

import make_scenarios as grid  # noqa: E402 - the grid's one home

MODELS = [(name, "llama-3.2-%s.json" % m) for m, name in grid.SERVE_MODELS]
BATCHES = grid.SERVE_BATCHES
INPUTS = grid.SERVE_INPUTS
OUTPUT = grid.SERVE_OUTPUT


class Stamps:
    """A transformers streamer that records when each put() comes."""

    def __init__(self):
        self.t = []

    def put(self, value):  # noqa: ARG002 - the tokens are not needed
        self.t.append(time.perf_counter())

    def end(self):
        pass


def gen_config(new_tokens):
    from transformers import GenerationConfig
    # no end-of-sequence token: every sequence runs to max_new_tokens
    return GenerationConfig(max_new_tokens=new_tokens, do_sample=False,
                            cache_implementation="static", disable_compile=True,
                            eos_token_id=None, pad_token_id=0, use_cache=True)


def one(model, vocab, batch, n_in, new_tokens):
    import torch
    g = torch.Generator(device="cuda")
    g.manual_seed(batch * 100003 + n_in)
    ids = torch.randint(1, vocab, (batch, n_in), device="cuda", generator=g)
    mask = torch.ones_like(ids)
    st = Stamps()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    out = model.generate(input_ids=ids, attention_mask=mask, generation_config=gen_config(new_tokens),
                         streamer=st)
    torch.cuda.synchronize()
    t1 = time.perf_counter()
    n_new = out.shape[1] - n_in
    return t0, t1, st.t, n_new


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    fw.add_deadline_args(ap)
    a = ap.parse_args()
    import json
    import torch
    from transformers import LlamaForCausalLM
    if not torch.cuda.is_available():
        fw.log("serve_bench: no CUDA GPU")
        return 1
    vers = fw.versions()
    dl = fw.deadline_of(a)
    w = fw.RowWriter(a.out, COLUMNS)
    bad = 0
    for mname, hfname in MODELS:
        hf = json.load(open(os.path.join(fw.HERE, "hf", hfname)))
        base = dict(model=mname, output_len=OUTPUT, cache_implementation="static",
                    compile="disabled (eager)", torch=vers["torch"],
                    transformers=vers["transformers"], gpu=vers["gpu"])
        model = None
        try:
            gc.collect()
            torch.cuda.empty_cache()
            cfg = fw.llama_config(hf, eos_token_id=None)
            with torch.device("cuda"):
                model = LlamaForCausalLM(cfg).to(torch.bfloat16)
            attn = fw.set_sdpa(model)
            model.eval()
            base["attn_implementation"] = attn
        except Exception as e:  # noqa: BLE001
            traceback.print_exc()
            for b in BATCHES:
                for n in INPUTS:
                    w.row(dict(base, config=grid.serve_name(mname, b, n), batch=b, input_len=n,
                               status="error", notes=str(e)[:300]))
                    bad += 1
            continue
        for n_in in INPUTS:
            for b in BATCHES:
                row = dict(base, config=grid.serve_name(mname, b, n_in), batch=b, input_len=n_in)
                if not dl.allows(20):
                    row["status"] = "skipped: time budget"
                    w.row(row)
                    bad += 1
                    continue
                try:
                    torch.cuda.reset_peak_memory_stats()
                    with torch.inference_mode():
                        one(model, hf["vocab_size"], b, n_in, 4)  # warm-up, same shape
                        t0, t1, puts, n_new = one(model, hf["vocab_size"], b, n_in, OUTPUT)
                    # puts[0] is the prompt; puts[1] the first new token
                    if len(puts) < 3 or n_new < 2:
                        raise RuntimeError("generate streamed %d puts for %d new tokens"
                                           % (len(puts), n_new))
                    gaps = [y - x for x, y in zip(puts[1:], puts[2:])]
                    row.update(status="ok", ttft_s=puts[1] - t0,
                               tpot_s=(puts[-1] - puts[1]) / (len(puts) - 2),
                               itl_median_s=statistics.median(gaps), e2e_s=t1 - t0,
                               output_tokens=n_new, output_throughput=b * n_new / (t1 - t0),
                               max_memory_reserved=torch.cuda.max_memory_reserved())
                    if n_new != OUTPUT:
                        row["notes"] = "generated %d tokens, not %d" % (n_new, OUTPUT)
                except torch.cuda.OutOfMemoryError as e:
                    row.update(status="oom", notes=str(e).splitlines()[0][:300])
                except Exception as e:  # noqa: BLE001
                    traceback.print_exc()
                    row.update(status="error", notes=("%s: %s" % (type(e).__name__, e))[:400])
                w.row(row)
                bad += row["status"] != "ok"
                fw.log("%-32s %-6s ttft %8s s  tpot %8s s" % (
                    row["config"], row["status"],
                    "%.4f" % row["ttft_s"] if row.get("ttft_s") else "-",
                    "%.5f" % row["tpot_s"] if row.get("tpot_s") else "-"))
        del model
        gc.collect()
        torch.cuda.empty_cache()
    w.close()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
