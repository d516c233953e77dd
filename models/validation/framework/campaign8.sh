#!/bin/bash
# models/validation/framework/campaign8.sh - campaign 8 of issue 14 on one
# H200, one device call (BUDGET_S, default 540 s): training steps whose
# decoder layers run under torch.compile (Inductor fuses their elementwise
# chains), denser in GEMMs than the eager loop's, beside the eager loop on
# the same shapes; each configuration in its own process with its kernels
# profiled (train_bench.py --isolate --profile), and the GPU's clocks, power
# and throttle reasons every 100 ms throughout, the runs' start and end
# marked in the log. What it expects is in PREDICTION.md, written first.
# Files under $OUT: log.txt, train.csv, kernels.csv, nvsmi.csv, marks.txt.
# Run from the repository root:
#   bash models/validation/framework/campaign8.sh
# DRY=1 checks the scripts compile and lists the runs, without a GPU.
set -u
out=${OUT:-/tmp/out}
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1 TOKENIZERS_PARALLELISM=false HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
export TORCHINDUCTOR_CACHE_DIR=${TMPDIR:-/tmp}/pp-inductor-cache
dir=models/validation/framework
budget=${BUDGET_S:-540}
t0=$(date +%s)
log=$out/log.txt
: > "$log"
say() { echo "== $* (t=$(( $(date +%s) - t0 )) s)" | tee -a "$log"; }
left() { echo $(( t0 + budget - $(date +%s) )); }
python3 -m py_compile "$dir/train_bench.py" "$dir/fwcommon.py" || exit 2
# the most telling first: four micro-batches compiled and eager, then one
runs="fw-h200-compile-3b-s4k-mb2-ga4-none
fw-h200-plain-3b-s4k-mb2-ga4-none
fw-h200-compile-3b-s4k-mb2-none
fw-h200-plain-3b-s4k-mb2-none
fw-h200-compile-1b-s4k-mb2-none
fw-h200-compile-3b-s8k-mb1-none"
if [ -n "${DRY:-}" ]; then
	for c in $runs; do
		[ -f "$dir/scenarios/$c.json" ] || { echo "missing scenario $c"; exit 2; }
		echo "train_bench --isolate --profile --only $c"
	done
	exit 0
fi
say machine
{ nvidia-smi -L; nproc; python3 -c 'import torch, transformers; print("torch", torch.__version__, "transformers", transformers.__version__)'; } >> "$log" 2>&1
reasons=clocks_event_reasons.active
nvidia-smi --query-gpu=$reasons --format=csv > /dev/null 2>&1 || reasons=clocks_throttle_reasons.active
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,power.limit,temperature.gpu,utilization.gpu,$reasons \
	--format=csv -lms 100 > "$out/nvsmi.csv" 2>/dev/null &
smi=$!
for c in $runs; do
	[ "$(left)" -lt 100 ] && { say "$c: skipped"; continue; }
	echo "start $c $(date +%s.%N)" >> "$out/marks.txt"
	timeout -k 5 $(( $(left) - 10 )) python3 "$dir/train_bench.py" --out "$out/train.csv" \
		--profile "$out/kernels.csv" --only "$c" --isolate >> "$log" 2>&1
	rc=$?
	echo "end $c $(date +%s.%N)" >> "$out/marks.txt"
	say "$c: exit $rc"
done
kill $smi 2>/dev/null
grep -E 'exit|s/step' "$log" | tail -20
