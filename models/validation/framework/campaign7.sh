#!/bin/bash
# models/validation/framework/campaign7.sh - campaign 7 of issue 14 on one
# H200, one device call (BUDGET_S, default 540 s): where the caching
# allocator's reservation grows under full recompute (mem_trace.py, each
# configuration and variant in its own process), and the host-bound
# SmolLM2-135M rows in several fresh processes (train_bench.py --isolate,
# one process each). What it expects is in PREDICTION.md, written first.
# Files under $OUT: log.txt, phases.csv, segments.csv, final.csv, host.csv,
# cpu.txt. Run from the repository root:
#   bash models/validation/framework/campaign7.sh
# DRY=1 checks the scripts compile and lists the runs, without a GPU.
set -u
out=${OUT:-/tmp/out}
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1 TOKENIZERS_PARALLELISM=false HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
dir=models/validation/framework
budget=${BUDGET_S:-540}
t0=$(date +%s)
log=$out/log.txt
: > "$log"
say() { echo "== $* (t=$(( $(date +%s) - t0 )) s)" | tee -a "$log"; }
left() { echo $(( t0 + budget - $(date +%s) )); }
python3 -m py_compile "$dir/mem_trace.py" "$dir/train_bench.py" "$dir/fwcommon.py" || exit 2
# configuration variant: the five full-recompute plain rows that miss, two
# that do not (TinyLlama full, 1B without recompute), and the two
# variants on 1B and 3B at 8K
runs="fw-h200-plain-1b-s8k-mb1-full:default
fw-h200-plain-3b-s8k-mb1-full:default
fw-h200-plain-1b-s8k-mb1-full:expandable
fw-h200-plain-3b-s8k-mb1-full:expandable
fw-h200-plain-1b-s8k-mb1-full:keepgrads
fw-h200-plain-3b-s8k-mb1-full:keepgrads
fw-h200-plain-1b-s2k-mb8-full:default
fw-h200-plain-3b-s4k-mb4-full:default
fw-h200-plain-1b-s8k-mb1-none:default
fw-h200-plain-tinyllama-s2k-mb4-full:default
fw-h200-plain-1b-s16k-mb1-full:default"
host="fw-h200-plain-smollm2-135m-s2k-mb8-none fw-h200-plain-smollm2-135m-s2k-mb8-none
fw-h200-plain-smollm2-135m-s2k-mb8-none fw-h200-plain-smollm2-135m-s2k-mb8-none
fw-h200-plain-smollm2-135m-s2k-mb8-none fw-h200-plain-smollm2-135m-s4k-mb4-full
fw-h200-plain-smollm2-135m-s4k-mb4-full fw-h200-plain-smollm2-135m-s4k-mb4-full"
if [ -n "${DRY:-}" ]; then
	echo "$runs" | sed 's/^/mem_trace /'; echo $host | tr ' ' '\n' | sed 's/^/train_bench /'
	exit 0
fi
say machine
{ nvidia-smi -L; nproc; python3 -c 'import torch, transformers; print("torch", torch.__version__, "transformers", transformers.__version__)'; } >> "$log" 2>&1
cpu() { { date +%s; grep -m4 MHz /proc/cpuinfo; cat /proc/loadavg; } >> "$out/cpu.txt" 2>/dev/null; }
# the host rows first: their processes see the machine as the campaign's did
for c in $host; do
	[ "$(left)" -lt 60 ] && { say "host $c: skipped"; continue; }
	cpu
	timeout -k 5 60 python3 "$dir/train_bench.py" --out "$out/host.csv" --only "$c" --isolate >> "$log" 2>&1
	say "host $c: exit $?"
done
for r in $runs; do
	c=${r%%:*}; v=${r##*:}
	[ "$(left)" -lt 45 ] && { say "trace $r: skipped"; continue; }
	env=
	[ "$v" = expandable ] && env="PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"
	timeout -k 5 120 env $env python3 "$dir/mem_trace.py" --only "$c" --variant "$v" \
		--phases "$out/phases.csv" --segments "$out/segments.csv" --final "$out/final.csv" >> "$log" 2>&1
	say "trace $r: exit $?"
done
grep -E 'reserved|exit' "$log" | tail -30
