#!/bin/bash
# calibrate/device_profile.sh - where a framework step's time goes on one H200,
# and the fuzz targets on the CPUs the GPU run leaves idle, in one device call
# of under 9 minutes (BUDGET_S, default 420 s):
#   1. train_bench.py --profile on the configurations of PROFILE_ONLY (default
#      six of models/validation/framework/scenarios/: plain, DDP and FSDP2,
#      1B and 3B, with and without full recompute): the timed steps as in
#      the campaign, then memory at each phase of a step and every kernel of
#      two steps under torch.profiler -> train.csv, kernels.csv
#   2. meanwhile, pinned away from the CPUs the Python process uses, each
#      libFuzzer target of build/fuzz (make fuzz on the build machine, carried)
#      on two CPUs for FUZZ_S seconds from its seed corpus -> fuzz.txt, and
#      fuzz.tgz with every finding and log
#   HOST=1: then host_bench.py (the host's time to issue a kernel from eager
#      PyTorch: a bare op, an autograd chain, a Hugging Face decoder layer at
#      16 tokens) -> host.csv
#   3. nvidia-smi clocks, power and throttle reasons every 500 ms -> nvsmi.csv
# Run from the repository root with bin, lib and build/fuzz carried
# (calibrate/device_pack.sh, make fuzz). At most 8 files come back: log.txt,
# train.csv, kernels.csv, nvsmi.csv, python.txt, fuzz.txt, fuzz.tgz, host.csv.
set -u
out=${OUT:-/tmp/out}
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PODPLAN_DATA=$PWD/models PYTHONUNBUFFERED=1 TOKENIZERS_PARALLELISM=false
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
export LD_LIBRARY_PATH=$PWD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
budget=${BUDGET_S:-420}
fuzz_s=${FUZZ_S:-$(( budget - 60 ))}
only=${PROFILE_ONLY:-fw-h200-plain-1b-s4k-mb2-none,fw-h200-plain-3b-s4k-mb2-none,fw-h200-plain-3b-s8k-mb1-full,fw-h200-plain-1b-s2k-mb8-full,fw-h200-ddp-1b-s4k-mb2-none,fw-h200-fsdp2-3b-s4k-mb2-none}
t0=$(date +%s)
log=$out/log.txt
: > "$log"
say() { echo "== $* (t=$(( $(date +%s) - t0 )) s)" | tee -a "$log"; }
ncpu=$(nproc)
command -v taskset > /dev/null || taskset() { shift 2; "$@"; }

reasons=clocks_event_reasons.active
nvidia-smi --query-gpu=$reasons --format=csv > /dev/null 2>&1 || reasons=clocks_throttle_reasons.active
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,power.limit,temperature.gpu,utilization.gpu,memory.used,$reasons \
	--format=csv,nounits -lms 500 > "$out/nvsmi.csv" 2>&1 &
mon=$!
say "machine: $ncpu CPUs"
{ nvidia-smi -L; uname -r
  python3 -c 'import sys, torch, transformers; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "transformers", transformers.__version__)'; } >> "$log" 2>&1

# 2. the fuzz targets on CPUs 4.. (two each), the GPU run on CPUs 0-3
. calibrate/device_fuzz.sh
fuzz_start 4 "$fuzz_s" >> "$log"  # not in a pipe: its pids stay this shell's

# 1. the profiled framework steps
export DEADLINE=$(( t0 + budget - 30 ))
say "train --profile: start"
taskset -c 0-3 python3 models/validation/framework/train_bench.py --out "$out/train.csv" \
	--profile "$out/kernels.csv" --only "$only" --deadline-env 2>> "$out/python.txt"
say "train --profile: exit $?"
if [ -n "${HOST:-}" ]; then
	say "host: start"
	timeout 120 taskset -c 0-3 python3 models/validation/framework/host_bench.py --out "$out/host.csv" \
		--deadline-env 2>> "$out/python.txt"
	say "host: exit $?"
fi

fuzz_finish "$out"
kill "$mon" 2>/dev/null
wait "$mon" 2>/dev/null
say "done"
echo
cat "$out/fuzz.txt"
echo
python3 - "$out/kernels.csv" <<'PY' 2>&1
import csv, sys
try:
    rows = list(csv.DictReader(open(sys.argv[1])))
except OSError as e:
    sys.exit("no kernels.csv: %s" % e)
cfgs = []
for r in rows:
    if r["config"] not in cfgs:
        cfgs.append(r["config"])
for c in cfgs:
    rs = [r for r in rows if r["config"] == c]
    s = {r["name"]: r for r in rs if r["kind"] == "summary"}
    g = lambda n, k: float(s[n][k]) if n in s and s[n][k] else float("nan")
    print("%s: step %.1f ms unprofiled, GPU busy %.1f ms, span %.1f ms, %d kernels" % (
        c[7:], g("step_unprofiled", "us_per_step") / 1e3, g("gpu_busy", "us_per_step") / 1e3,
        g("gpu_span", "us_per_step") / 1e3, g("kernels", "count_per_step")))
    print("   " + "  ".join("%s %.1f ms/%d" % (r["name"], float(r["us_per_step"]) / 1e3,
                                              float(r["count_per_step"]))
                           for r in rs if r["kind"] == "family"))
PY
grep -E '^== ' "$log" | tail -8
