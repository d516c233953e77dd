"""models/validation/framework/fwcommon.py - what the campaign's device scripts
share: the scenarios as train_bench.py runs them, a CSV that is written row
by row (a killed script keeps every row it finished), CUDA-event timing, a
deadline, and the versions of what ran.

Runs on the GPU machine under its python3 (PyTorch 2.11, transformers 5.x);
nothing here is imported by podplan itself.
"""
import csv
import glob
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def add_deadline_args(ap):
    ap.add_argument("--deadline", type=float, default=None, help="epoch seconds to stop by")
    ap.add_argument("--deadline-env", action="store_true",
                    help="the deadline from $DEADLINE (calibrate/device_campaign.sh sets it)")


def deadline_of(a):
    if a.deadline_env and os.environ.get("DEADLINE"):
        return Deadline(float(os.environ["DEADLINE"]))
    return Deadline(a.deadline)


class Deadline:
    """Seconds left before `at` (epoch seconds; None = no limit)."""

    def __init__(self, at):
        self.at = at

    def left(self):
        return float("inf") if self.at is None else self.at - time.time()

    def allows(self, need_s):
        return self.left() > need_s


class RowWriter:
    """A CSV with a fixed header, each row flushed and fsync'd as written."""

    def __init__(self, path, columns):
        self.columns = columns
        new = not os.path.exists(path) or os.path.getsize(path) == 0
        self.f = open(path, "a", newline="")
        self.w = csv.DictWriter(self.f, fieldnames=columns, extrasaction="ignore")
        if new:
            self.w.writeheader()
            self.f.flush()

    def row(self, d):
        self.w.writerow({k: fmt(d.get(k, "")) for k in self.columns})
        self.f.flush()
        os.fsync(self.f.fileno())

    def close(self):
        self.f.close()


def fmt(v):
    if isinstance(v, float):
        return "%.6g" % v
    return v


def versions():
    import torch
    v = {"torch": torch.__version__, "cuda": torch.version.cuda or "",
         "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else ""}
    try:
        import transformers
        v["transformers"] = transformers.__version__
    except Exception as e:  # noqa: BLE001 - reported, not fatal here
        v["transformers"] = "not importable: %s" % e
    return v


def cuda_time(fn, warmup, iters):
    """Median, min and max seconds of fn() between CUDA events, after warm-up;
    fn's result of the last call comes back too."""
    import torch
    out = None
    for _ in range(warmup):
        out = fn()
    torch.cuda.synchronize()
    ev = []
    for _ in range(iters):
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        s.record()
        out = fn()
        e.record()
        ev.append((s, e))
    torch.cuda.synchronize()
    t = [s.elapsed_time(e) * 1e-3 for s, e in ev]
    return statistics.median(t), min(t), max(t), out


def load_scenarios(only=None):
    """The campaign's scenarios, each with its Hugging Face config read and its
    run settings: dicts with name, wrapper, model, hf (the config dict), seq,
    micro_batch, recompute, warmup, steps, compile (training.torch_compile), accum
    (micro-batches a step: global over micro batch size), path."""
    out = []
    for path in sorted(glob.glob(os.path.join(HERE, "scenarios", "*.json"))):
        s = json.load(open(path))
        if only and s["name"] not in only:
            continue
        run = s["_run"]
        hf_path = os.path.normpath(os.path.join(os.path.dirname(path), s["model"]["hf_config"]))
        out.append(dict(
            name=s["name"], wrapper=run["wrapper"], model=run["model"],
            hf=json.load(open(hf_path)), seq=int(s["model"]["seq_length"]),
            micro_batch=int(s["training"]["micro_batch_size"]),
            recompute=s["training"]["recompute"], warmup=int(run["warmup_steps"]),
            steps=int(run["steps"]), clip=float(run.get("clip_grad_norm", 0) or 0),
            compile=bool(s["training"].get("torch_compile", False)),
            accum=int(s["training"]["global_batch_size"]) // int(s["training"]["micro_batch_size"]),
            path=os.path.relpath(path)))
    return out


def llama_config(hf, **overrides):
    """A transformers LlamaConfig from a config.json dict (as published), with
    the attention implementation set to SDPA."""
    from transformers import LlamaConfig
    d = {k: v for k, v in hf.items() if not k.startswith("_")}
    d.update(overrides)
    d["attn_implementation"] = "sdpa"
    try:
        cfg = LlamaConfig.from_dict(d)
    except Exception as e:  # noqa: BLE001 - fall back to the architecture keys alone
        log("LlamaConfig.from_dict failed (%s); building from the architecture keys" % e)
        keys = ("hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
                "num_key_value_heads", "head_dim", "vocab_size", "max_position_embeddings",
                "rms_norm_eps", "rope_theta", "rope_scaling", "tie_word_embeddings", "use_cache",
                "hidden_act", "attention_bias", "mlp_bias")
        cfg = LlamaConfig(**{k: d[k] for k in keys if k in d})
    try:
        cfg._attn_implementation = "sdpa"
    except Exception as e:  # noqa: BLE001
        log("could not set config._attn_implementation: %s" % e)
    return cfg


def set_sdpa(model):
    """Ask the model for SDPA attention (transformers' set_attn_implementation
    where it exists) and say what it uses."""
    if hasattr(model, "set_attn_implementation"):
        try:
            model.set_attn_implementation("sdpa")
        except Exception as e:  # noqa: BLE001
            log("set_attn_implementation('sdpa') failed: %s" % e)
    return str(getattr(model.config, "_attn_implementation", "?"))
