#!/usr/bin/env python3
"""models/validation/framework/ops_families.py - podplan's predicted GPU time
of one training step by kernel family, from `podplan predict SCENARIO --ops`
(per-layer ops times the layer count, head and embedding once, the step's
micro-batches; "recompute" the layers' recomputed forward, "optimizer" the
optimizer step of the breakdown), to set beside train_bench.py --profile's measured families
(kernels.csv).

    python3 ops_families.py [BIN] SCENARIO...
"""
import re
import subprocess
import sys


def families(binary, scenario):
    import json
    pj = json.loads(subprocess.run([binary, "predict", scenario, "--json"], check=True,
                                   capture_output=True, text=True).stdout)
    out = subprocess.run([binary, "predict", scenario, "--ops"], check=True,
                         capture_output=True, text=True).stdout
    sc = json.load(open(scenario))
    import os
    hf = json.load(open(os.path.join(os.path.dirname(scenario), sc["model"]["hf_config"])))
    layers = hf["num_hidden_layers"]
    micro = sc["training"]["global_batch_size"] // sc["training"]["micro_batch_size"]
    fam = {}
    for line in out.splitlines():
        tot = re.match(r"\s+layer totals: .*recompute ([0-9.]+) us", line)
        if tot:
            fam["recompute"] = float(tot.group(1)) * layers * micro
            continue
        m = re.match(r"\s+(layer|embed|head)\s+(\S+)\s+(\S+)\s+(gemm|attn|mem|comm\S*|\S+)\s", line)
        if not m:
            continue
        t = float(line.split()[-2])
        part, kind = m.group(1), m.group(4)
        n = layers if part == "layer" else 1
        fam[kind] = fam.get(kind, 0.0) + t * n * micro
    fam["optimizer"] = pj["breakdown"]["optimizer_s"] * 1e6
    return pj["step_time_s"], fam


def main():
    args = sys.argv[1:]
    binary = "bin/podplan"
    if args and not args[0].endswith(".json"):
        binary = args.pop(0)
    for s in args:
        step, fam = families(binary, s)
        print("%-34s step %7.1f ms  " % (s.rsplit("/", 1)[-1][7:-5], step * 1e3) +
              "  ".join("%s %.1f ms" % (k, v / 1e3) for k, v in sorted(fam.items())))


if __name__ == "__main__":
    main()
