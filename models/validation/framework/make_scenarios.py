#!/usr/bin/env python3
"""models/validation/framework/make_scenarios.py - (re)write the scenarios of the
framework validation campaign (issue 14), one per configuration, under
models/validation/framework/scenarios/.

Each scenario describes one training run that train_bench.py executes on one
H200 with PyTorch and Hugging Face transformers, in podplan's scenario format
(Megatron-LM argument names), so that `podplan predict` predicts the same run.
What the format cannot say yet sits in the comment key "_run" (keys starting
with "_" are comments): the PyTorch wrapper (none, DDP, FSDP2), the precision
recipe, the optimizer, the step counts. When the training section gains its
"framework" key (issue 14: "pytorch"), it goes in "training" and "_run"
shrinks to the step counts.

    python3 models/validation/framework/make_scenarios.py      # rewrites the files

The serving check's grid (serve_bench.py) has a scenario each too, under
models/validation/framework/serve/, in podplan serve's format.

The campaign's configuration lists live here and nowhere else (serve_bench.py
imports its grid from this file).
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# (wrapper, model, seq, micro_batch, recompute): tokens per step 8K-16K, the
# plain single-GPU loop over both sizes, the three sequence lengths and
# recompute on and off; DDP and FSDP2 at world size 1 on the shapes where
# they can differ from the plain loop (their bucketing, hooks and, for
# FSDP2, bf16 parameter copies).
CONFIGS = [
    ("plain", "1b", 2048, 4, "none"),
    ("plain", "1b", 4096, 2, "none"),
    ("plain", "1b", 8192, 1, "none"),
    ("plain", "1b", 8192, 1, "full"),
    ("plain", "1b", 2048, 8, "full"),
    ("plain", "3b", 2048, 4, "none"),
    ("plain", "3b", 4096, 2, "none"),
    ("plain", "3b", 8192, 1, "none"),
    ("plain", "3b", 8192, 1, "full"),
    ("plain", "3b", 4096, 4, "full"),
    ("ddp", "1b", 4096, 2, "none"),
    ("ddp", "3b", 4096, 2, "none"),
    ("ddp", "3b", 8192, 1, "full"),
    ("fsdp2", "1b", 4096, 2, "none"),
    ("fsdp2", "3b", 4096, 2, "none"),
    ("fsdp2", "3b", 8192, 1, "full"),
    # campaign 3's held-out rows, predicted before they were ever run: two
    # architectures podplan was never compared with on this GPU (TinyLlama's
    # 4 KV heads and 32K vocabulary; SmolLM2-135M, small enough that its
    # kernels are short and the host's issue rate shows), a 16K sequence
    # and FSDP2 with full recompute at 2K
    ("plain", "tinyllama", 2048, 8, "none"),
    ("plain", "tinyllama", 2048, 4, "full"),
    ("ddp", "tinyllama", 2048, 4, "none"),
    ("fsdp2", "tinyllama", 2048, 4, "none"),
    ("plain", "smollm2-135m", 2048, 8, "none"),
    ("plain", "smollm2-135m", 4096, 4, "full"),
    ("plain", "1b", 16384, 1, "full"),
    ("fsdp2", "3b", 2048, 4, "full"),
    # campaign 8: the plain loop with each decoder layer compiled (Inductor
    # fuses the layer's elementwise chains, as TorchTitan's compiled blocks
    # do): a step denser in GEMMs than the eager loop's, where the 700 W cap
    # may hold the clocks lower; 30 timed steps, 10 s and more back to back
    ("compile", "1b", 4096, 2, "none"),
    ("compile", "3b", 4096, 2, "none"),
    ("compile", "3b", 8192, 1, "none"),
    # four micro-batches a step: the optimizer's memory-bound step (a
    # sixth of the compiled 3B step) weighs a quarter as much
    ("compile", "3b", 4096, 2, "none", 4),
    ("plain", "3b", 4096, 2, "none", 4),
]

MODELS = {"1b": ("Llama-3.2-1B", "../hf/llama-3.2-1b.json"),
          "3b": ("Llama-3.2-3B", "../hf/llama-3.2-3b.json"),
          "tinyllama": ("TinyLlama-1.1B", "../hf/tinyllama-1.1b.json"),
          "smollm2-135m": ("SmolLM2-135M", "../hf/smollm2-135m.json")}

WRAPPERS = {
    "plain": dict(
        wrapper="none",
        precision="torch.autocast(bfloat16) over fp32 parameters (PyTorch AMP)",
        describe="plain PyTorch loop, no wrapper"),
    "ddp": dict(
        wrapper="ddp",
        precision="torch.autocast(bfloat16) over fp32 parameters (PyTorch AMP)",
        describe="torch.nn.parallel.DistributedDataParallel at world size 1 (NCCL; its "
                 "all-reduce is degenerate: one rank)"),
    "fsdp2": dict(
        wrapper="fsdp2",
        precision="fully_shard MixedPrecisionPolicy(param_dtype=bfloat16, "
                  "reduce_dtype=float32) over fp32 parameters",
        describe="torch.distributed.fsdp.fully_shard (FSDP2) per decoder layer and the root "
                 "at world size 1 (its all-gather and reduce-scatter are degenerate: one rank)"),
    "compile": dict(
        wrapper="none",
        precision="torch.autocast(bfloat16) over fp32 parameters (PyTorch AMP)",
        describe="plain PyTorch loop, no wrapper, each decoder layer under torch.compile "
                 "(nn.Module.compile, default mode; embedding, output layer, loss and "
                 "optimizer eager)"),
}


def name_of(c):
    w, m, seq, mb, rc = c[:5]
    ga = c[5] if len(c) > 5 else 1
    return "fw-h200-%s-%s-s%dk-mb%d%s-%s" % (w, m, seq // 1024, mb,
                                             "-ga%d" % ga if ga > 1 else "", rc)


def scenario(c):
    w, m, seq, mb, rc = c[:5]
    ga = c[5] if len(c) > 5 else 1  # micro-batches a step (gradient accumulation)
    model_name, hf = MODELS[m]
    wr = WRAPPERS[w]
    return {
        "name": name_of(c),
        "description": "Framework validation (issue 14): %s, %s from its Hugging Face config "
                       "(random init), sequence %d, micro batch %d%s, recompute %s, on one "
                       "H200; Hugging Face transformers LlamaForCausalLM, SDPA attention, "
                       "torch.optim.AdamW, real loss on synthetic tokens."
                       % (model_name, wr["describe"], seq, mb,
                          ", %d micro-batches a step" % ga if ga > 1 else "", rc),
        "_run": {
            "framework": "pytorch",
            "wrapper": wr["wrapper"],
            "model": model_name,
            "precision": wr["precision"],
            "attention": "sdpa",
            "recompute": "transformers gradient_checkpointing_enable(use_reentrant=False): "
                         "every decoder layer" if rc == "full" else "none",
            "optimizer": "torch.optim.AdamW(lr=1e-5, betas=(0.9, 0.95), weight_decay=0.1), "
                         "PyTorch's default foreach implementation",
            "clip_grad_norm": 1.0,
            "warmup_steps": 3,
            "steps": (30 if ga == 1 else 12) if w == "compile" else 8,
        },
        "model": {"hf_config": hf, "seq_length": seq},
        "training": {
            "framework": "pytorch",
            "torch_compile": w == "compile",
            "master_weights_fp32": True,
            "ddp": w == "ddp",
            "grad_reduce_in_fp32": w == "fsdp2",
            "global_batch_size": mb * ga,
            "micro_batch_size": mb,
            "precision": "bf16",
            "recompute": rc,
            "optimizer": "adam",
            "use_flash_attn": True,
        },
        "parallel": {"data_parallel_size": 1, "zero_stage": 3 if w == "fsdp2" else 0},
        "cluster": {"gpu": "h200", "num_gpus": 1},
        "calibration": {"db": "../../../calibrations/h200-1gpu-train-burst.db",
                        "profile": "h200-1gpu-burst"},
    }


# the serving check (issue 16): serve_bench.py's grid; models, batches,
# input and output lengths as it runs them
SERVE_MODELS = [("1b", "Llama-3.2-1B"), ("3b", "Llama-3.2-3B")]
SERVE_BATCHES = [1, 8, 32]
SERVE_INPUTS = [512, 2048]
SERVE_OUTPUT = 128


def serve_name(model_name, batch, n_in):
    return "%s-b%d-in%d-out%d" % (model_name, batch, n_in, SERVE_OUTPUT)


def serve_scenario(m, model_name, batch, n_in):
    """podplan serve's closest description of one generate() call: all
    `batch` prompts at once, one batch (max_num_seqs = batch), eager. The
    engine is vLLM's scheduler model, the nearest podplan has: transformers'
    generate() runs a static batch (prefill of all, then decode of all), no
    chunking, in eager PyTorch with its own per-module overhead."""
    return {
        "name": "fw-h200-serve-" + serve_name(model_name, batch, n_in),
        "description": "Serving check (issue 16): Hugging Face generate() with a static KV cache "
                       "(cache_implementation=\"static\", eager: disable_compile), %s from its "
                       "config, batch %d, input %d, output %d, greedy, on one H200"
                       % (model_name, batch, n_in, SERVE_OUTPUT),
        "_run": {"framework": "transformers generate()",
                 "_engine_key": "serving.engine has no transformers entry yet: vllm with "
                                "enforce_eager is the nearest; prefill is not chunked there",
                 "model": model_name, "batch": batch, "input_len": n_in,
                 "output_len": SERVE_OUTPUT},
        "model": {"hf_config": MODELS[m][1]},
        "cluster": {"gpu": "h200", "num_gpus": 1},
        "serving": {"engine": "vllm", "tensor_parallel_size": 1, "enforce_eager": True,
                    "max_num_seqs": batch, "max_num_batched_tokens": batch * n_in,
                    "enable_prefix_caching": False},
        "workload": {"num_prompts": batch, "input_len": n_in, "output_len": SERVE_OUTPUT,
                     "request_rate": "inf"},
    }


def write_dir(out, docs):
    os.makedirs(out, exist_ok=True)
    want = set()
    for name, doc in docs:
        want.add(name + ".json")
        with open(os.path.join(out, name + ".json"), "w") as f:
            json.dump(doc, f, indent=2)
            f.write("\n")
    for f in os.listdir(out):
        if f.endswith(".json") and f not in want:
            os.remove(os.path.join(out, f))


def main():
    serve = []
    for m, model_name in SERVE_MODELS:
        for n_in in SERVE_INPUTS:
            for b in SERVE_BATCHES:
                d = serve_scenario(m, model_name, b, n_in)
                serve.append((d["name"], d))
    write_dir(os.path.join(HERE, "serve"), serve)
    out = os.path.join(HERE, "scenarios")
    os.makedirs(out, exist_ok=True)
    want = set()
    for c in CONFIGS:
        n = name_of(c)
        want.add(n + ".json")
        with open(os.path.join(out, n + ".json"), "w") as f:
            json.dump(scenario(c), f, indent=2)
            f.write("\n")
    for f in os.listdir(out):
        if f.endswith(".json") and f not in want:
            os.remove(os.path.join(out, f))
    print("wrote %d training scenarios to %s and %d serving scenarios" % (
        len(CONFIGS), os.path.relpath(out), len(serve)), file=sys.stderr)


if __name__ == "__main__":
    main()
